import assert from "node:assert/strict";
import { closest, formatProblem } from "./problem.ts";

Deno.test("closest() suggests near names and containing names, not far ones", () => {
  assert.equal(closest("evl", ["eval", "list", "score"]), "eval");
  assert.equal(closest("retail", ["tau2_retail", "tau2_airline"]), "tau2_retail");
  assert.equal(closest("a", ["livekit/hangup", "menu"]), undefined);
  assert.equal(closest("xyzzy", ["eval", "list"]), undefined);
});

Deno.test("formatProblem() puts file, line, place and field first", () => {
  assert.equal(
    formatProblem({
      file: "f.yaml",
      line: 3,
      where: 'node "a"',
      field: "say",
      message: "required",
      hint: "add it",
    }),
    'f.yaml:3: node "a": field "say": required (add it)',
  );
  assert.equal(formatProblem({ message: "no scenarios selected" }), "no scenarios selected");
});
