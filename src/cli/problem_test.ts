import assert from "node:assert/strict";
import { PROBLEM_CODES, PROBLEM_OPTIONS } from "../problem/problem.ts";
import {
  cliError,
  cliProblem,
  CODE_HINTS,
  formatProblem,
  InputError,
  OPTION_FLAGS,
} from "./problem.ts";
import { openDataRoot } from "./data_root.ts";

Deno.test("cliProblem: an option becomes its flag, a code the CLI's hint; twice is once", () => {
  const p = {
    option: "host" as const,
    code: "token_required" as const,
    message: "binding 0.0.0.0 (not loopback) needs a token",
    hint: "give a token",
  };
  const cli = cliProblem(p);
  assert.equal(cli.field, "--host");
  assert.match(cli.hint!, /--token or set CALLBENCH_TOKEN/);
  assert.deepEqual(cliProblem(cli), cli);
  assert.equal(
    formatProblem(p),
    'field "--host": binding 0.0.0.0 (not loopback) needs a token ' +
      "(pass --token or set CALLBENCH_TOKEN; clients send it as a Bearer header or ?token=)",
  );
  // A data field stays; the override names where a value came from.
  assert.equal(cliProblem({ ...p, field: "world.db.path" }).field, "world.db.path");
  assert.equal(
    cliProblem({ option: "token", message: "m" }, { token: "CALLBENCH_TOKEN" }).field,
    "CALLBENCH_TOKEN",
  );
  // Without option or code, nothing changes.
  assert.deepEqual(cliProblem({ message: "m", hint: "h" }), { message: "m", hint: "h" });
});

Deno.test("every option has a flag and every code a hint", () => {
  assert.deepEqual(Object.keys(OPTION_FLAGS).sort(), [...PROBLEM_OPTIONS].sort());
  assert.deepEqual(Object.keys(CODE_HINTS).sort(), [...PROBLEM_CODES].sort());
});

Deno.test("cliError maps an InputError's problems and leaves other errors alone", () => {
  const e = cliError(new InputError({ option: "out", message: "cannot use as an output folder" }));
  assert.equal(e.message, 'field "--out": cannot use as an output folder');
  const other = new Error("x");
  assert.equal(cliError(other as unknown), other);
});

Deno.test("the CLI's data root: --data-root, else EVAL_DATA_ROOT, named when missing", () => {
  const env = (vars: Record<string, string>) => ({ env: (n: string) => vars[n] });
  const problem = (flag: string | undefined, vars: Record<string, string>) => {
    try {
      openDataRoot(flag, env(vars));
    } catch (e) {
      if (e instanceof InputError) return formatProblem(e.problems[0]!);
      throw e;
    }
  };
  assert.match(
    problem("/no/flag", { EVAL_DATA_ROOT: "/no/env" })!,
    /^\/no\/flag: data root not found \(from --data-root\) \(pass --data-root DIR or set EVAL_DATA_ROOT/,
  );
  assert.match(
    problem(undefined, { EVAL_DATA_ROOT: "/no/env" })!,
    /^\/no\/env: data root not found \(from EVAL_DATA_ROOT\)/,
  );
  assert.equal(problem(undefined, {}), undefined); // the bundled fixtures
});
