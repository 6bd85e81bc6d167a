/**
 * Whether a scenario from a file can run: its domain exists, its worlds are in the data
 * root, and every tool, initialisation function and predicate it names is the
 * domain's; and every signal that gates success can apply (a `db_state_match` without
 * an expected hash would score "not applicable" as a pass). Data-root suites check
 * this while loading; files are checked here, before any call.
 *
 * @module
 */
import {
  closest,
  fieldText,
  InputError,
  type Problem,
  type ProblemCode,
} from "../problem/problem.ts";
import type { Domain, Side } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import { findTool } from "../domains/domain.ts";
import type { DataRoot } from "./data_root.ts";
import type { Scenario, Signal } from "./scenario.ts";
import { type FieldPath, lineOf } from "./lines.ts";
import { initialWorldHash } from "./identity.ts";

export interface CheckOptions {
  /**
   * Leave out the gating-signal check: `gold FILE` computes the expected hash a
   * scenario written from scratch does not have yet.
   */
  forGold?: boolean;
}

/** Every reason the scenarios (from files) cannot run as written, located. */
export async function checkRunnable(
  scenarios: readonly Scenario[],
  root: DataRoot,
  options: CheckOptions = {},
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const s of scenarios) {
    const at = (
      path: FieldPath,
      message: string,
      hint?: string,
      code?: ProblemCode,
    ): Problem => ({
      ...problemAt(s, path, message, hint),
      ...(code ? { option: "data_root" as const, code } : {}),
    });
    if (!options.forGold && s.domain !== "flow") {
      for (const { index, signal, needs } of _neverApplies(s)) {
        problems.push(at(
          ["success_signals", index],
          `"${signal}" can never apply: the scenario has no ${needs}`,
          signal === "db_state_match"
            ? "give expect.db_sha256 (cli.ts gold FILE computes it from expect.reference_actions)"
            : `give ${needs}, or drop "${signal}"`,
        ));
      }
    }
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
      if (!source || !("path" in source)) continue;
      if (!_dbExists(root, source.path)) {
        problems.push(
          at(
            ["world", side, "path"],
            `no database "${source.path}" in the data root ${root.path}`,
            "use the data root the file was written for",
            "world_not_in_data_root",
          ),
        );
        continue;
      }
      if (source.sha256 === undefined) continue;
      let actual: string;
      try {
        actual = initialWorldHash(root, source.path);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        problems.push(at(["world", side, "path"], e.problems[0]!.message));
        continue;
      }
      if (actual !== source.sha256) {
        problems.push(at(
          ["world", side, "sha256"],
          `the world "${source.path}" in the data root ${root.path} is not the one recorded: ` +
            `its initial hash is ${actual.slice(0, 12)}…, the file says ${
              source.sha256.slice(0, 12)
            }…`,
          "use the data root the file was scaffolded from",
          "world_differs",
        ));
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
    s.expect.reference_actions?.forEach((a, i) => {
      tool(a.side, a.name, ["expect", "reference_actions", i, "name"]);
      // The arguments as the tool's schema reads them: a wrong one fails the replay.
      const def = findTool(domain, a.side, a.name);
      if (!def) return;
      const parsed = def.args.safeParse(a.arguments);
      if (parsed.success) return;
      for (const issue of parsed.error.issues.slice(0, 3)) {
        const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
        problems.push(at(
          ["expect", "reference_actions", i, "arguments", ...path],
          `${def.name}: ${issue.message}`,
          `the tools command lists ${def.name}'s arguments (domain ${domain.id})`,
        ));
      }
    });
    s.initialization_actions.forEach((a, i) => {
      const fns = domain.initFunctions?.[a.side] ?? {};
      if (!Object.hasOwn(fns, a.func_name)) {
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
      if (!Object.hasOwn(preds, a.func_name)) {
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

/**
 * What may be wrong though the scenario runs: a success gated on `clean_exit` while
 * the agent is offered no tool that ends the call (it could only end it with `<exit>`
 * text, which the oracle never says).
 */
export async function checkWarnings(scenarios: readonly Scenario[]): Promise<Problem[]> {
  const warnings: Problem[] = [];
  for (const s of scenarios) {
    const index = s.success_signals.indexOf("clean_exit");
    if (index < 0 || s.domain === "flow") continue;
    let domain: Domain;
    try {
      domain = await getDomain(s.domain);
    } catch (e) {
      if (e instanceof InputError) continue; // an error of its own, from checkRunnable
      throw e;
    }
    const offered = s.agent.tools.length > 0
      ? s.agent.tools.map((n) => findTool(domain, "agent", n))
      : domain.tools.filter((t) => t.side === "agent");
    if (offered.some((t) => t?.effect === "end_call" || t?.effect === "transfer")) continue;
    const ending = domain.tools.find((t) => t.side === "agent" && t.effect === "end_call");
    warnings.push(problemAt(
      s,
      ["success_signals", index],
      `"clean_exit" gates success but agent.tools offers no tool that ends the call`,
      ending
        ? `add "${ending.name}" to agent.tools (and as the last of expect.reference_actions, ` +
          `so the oracle ends the call), or drop "clean_exit"`
        : `drop "clean_exit": domain ${domain.id} has no tool that ends the call`,
    ));
  }
  return warnings;
}

/** What each signal needs in order to apply (src/score/signals.ts); absent = always can. */
const _SIGNAL_NEEDS: Partial<Record<Signal, [string, (s: Scenario) => boolean]>> = {
  db_state_match: ["expected DB hash (expect.db_sha256)", (s) => s.expect.db_sha256 !== undefined],
  is_action_match: [
    "reference actions (expect.reference_actions)",
    (s) => s.expect.reference_actions !== undefined,
  ],
  db_state_assertion: [
    "state assertions (expect.db_state_assertions)",
    (s) => s.expect.db_state_assertions.length > 0,
  ],
  nl_assertion: [
    "NL assertions (expect.nl_assertions or expect.agent_expectations)",
    (s) => s.expect.nl_assertions.length > 0 || s.expect.agent_expectations !== undefined,
  ],
  flow_expectation: ["flow expectation (expect.flow)", (s) => s.expect.flow !== undefined],
};

/** Gating signals that can never apply to the scenario: each would score "N/A" as a pass. */
function _neverApplies(s: Scenario): { index: number; signal: Signal; needs: string }[] {
  const out: { index: number; signal: Signal; needs: string }[] = [];
  s.success_signals.forEach((signal, index) => {
    const need = _SIGNAL_NEEDS[signal];
    if (need && !need[1](s)) out.push({ index, signal, needs: need[0] });
  });
  return out;
}

function _dbExists(root: DataRoot, path: string): boolean {
  const stem = path.replace(/\.json$/, "");
  try {
    return root.exists(`${stem}.json`) || root.exists(stem);
  } catch {
    return false; // a path that leaves the data root
  }
}

/** A problem at a field of a scenario: its file (when it came from one), line, name and field. */
export function problemAt(
  s: Scenario,
  path: FieldPath,
  message: string,
  hint?: string,
): Problem {
  const line = lineOf(s, path);
  return {
    ...(s.source?.startsWith("file:") ? { file: s.source.slice(5) } : {}),
    ...(line !== undefined ? { line } : {}),
    where: s.name,
    field: fieldText(path),
    message,
    ...(hint ? { hint } : {}),
  };
}
