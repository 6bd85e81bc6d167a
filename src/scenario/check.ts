/**
 * Whether a scenario from a file can run: its domain exists, its worlds are in the data
 * root, and every tool, initialisation function and predicate it names is the
 * domain's. Data-root suites check this while loading; files are checked here, before
 * any call.
 *
 * @module
 */
import { closest, InputError, type Problem } from "../cli/problem.ts";
import type { Domain, Side } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import type { DataRoot } from "./data_root.ts";
import type { Scenario } from "./scenario.ts";
import { type FieldPath, fieldText, lineOf } from "./lines.ts";

export async function checkRunnable(
  scenarios: readonly Scenario[],
  root: DataRoot,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const s of scenarios) {
    const at = (path: FieldPath, message: string, hint?: string): Problem => {
      const line = lineOf(s, path);
      return {
        ...(s.source?.startsWith("file:") ? { file: s.source.slice(5) } : {}),
        ...(line !== undefined ? { line } : {}),
        where: s.name,
        field: fieldText(path),
        message,
        ...(hint ? { hint } : {}),
      };
    };
    let domain: Domain;
    try {
      domain = await getDomain(s.domain);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(at(["domain"], e.problems[0]!.message, e.problems[0]!.hint));
      continue;
    }
    for (const side of ["db", "user_db"] as const) {
      const source = s.world[side];
      if (source && "path" in source && !_dbExists(root, source.path)) {
        problems.push(
          at(
            ["world", side, "path"],
            `no database "${source.path}" in the data root ${root.path}`,
          ),
        );
      }
    }
    const tool = (side: Side, name: string, field: FieldPath) => {
      const tools = domain.tools.filter((t) => t.side === side);
      if (tools.some((t) => t.name === name || t.aliases?.includes(name))) return;
      const hint = closest(name, tools.map((t) => t.name));
      problems.push(
        at(
          field,
          `unknown ${side} tool "${name}" in domain ${domain.id}`,
          hint && `did you mean "${hint}"?`,
        ),
      );
    };
    s.agent.tools.forEach((n, i) => tool("agent", n, ["agent", "tools", i]));
    s.user.tools.forEach((n, i) => tool("user", n, ["user", "tools", i]));
    s.expect.reference_actions?.forEach((a, i) =>
      tool(a.side, a.name, ["expect", "reference_actions", i, "name"])
    );
    s.initialization_actions.forEach((a, i) => {
      const fns = domain.initFunctions?.[a.side] ?? {};
      if (!(a.func_name in fns)) {
        const hint = closest(a.func_name, Object.keys(fns));
        problems.push(at(
          ["initialization_actions", i, "func_name"],
          `unknown ${a.side} initialization function "${a.func_name}"`,
          hint && `did you mean "${hint}"?`,
        ));
      }
    });
    s.expect.db_state_assertions.forEach((a, i) => {
      const preds = domain.predicates?.[a.side] ?? {};
      if (!(a.func_name in preds)) {
        const hint = closest(a.func_name, Object.keys(preds));
        problems.push(at(
          ["expect", "db_state_assertions", i, "func_name"],
          `unknown ${a.side} predicate "${a.func_name}"`,
          hint && `did you mean "${hint}"?`,
        ));
      }
    });
  }
  return problems;
}

function _dbExists(root: DataRoot, path: string): boolean {
  const stem = path.replace(/\.json$/, "");
  try {
    return root.exists(`${stem}.json`) || root.exists(stem);
  } catch {
    return false; // a path that leaves the data root
  }
}
