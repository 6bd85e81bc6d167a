/**
 * Conformance needs the real benchmarks: without them this fails first and says so,
 * rather than the other files' counts failing or their tests being skipped.
 */
import assert from "node:assert/strict";
import { dataRootProblem, requireDataRoot } from "./_data_root.ts";

Deno.test("the benchmark data root is present", () => {
  requireDataRoot();
});

Deno.test("a missing data root is explained, naming the folder and EVAL_DATA_ROOT", () => {
  const problem = dataRootProblem("/nonexistent/data");
  assert.ok(problem);
  assert.match(problem, /^the benchmark data root is missing: \/nonexistent\/data /);
  assert.match(problem, /set EVAL_DATA_ROOT/);
});
