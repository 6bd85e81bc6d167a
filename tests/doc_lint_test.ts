/**
 * The public API is documented: `deno doc --lint` over the package's entry points
 * (deno.json "exports") reports no problem, except two kinds that come from zod and
 * hono themselves and that no comment can fix:
 *
 * - `missing-explicit-type` on an exported zod schema (`export const X = z....`): its
 *   type is zod's inferred generic, as with the `no-slow-types` rule deno.json leaves out;
 * - `private-type-ref` to a type of a dependency (zod's `output` behind `z.infer`,
 *   `ZodType`, `ZodError`; hono's `Hono`, `UpgradeWebSocket`): this Deno flags types
 *   of other packages as private (denoland/deno#27364).
 *
 * Anything else (a missing JSDoc, a reference to one of our own unexported types) fails,
 * and the test prints every problem found.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRY_POINTS = ["mod.ts", "server.ts", "serve.ts"];
/** Types of dependencies a public signature may name. */
const DEPENDENCY_TYPES = new Set(["output", "ZodType", "ZodError", "Hono", "UpgradeWebSocket"]);

interface DocProblem {
  kind: string;
  /** The `error[...]` block as printed. */
  text: string;
}

/** Splits `deno doc --lint` output into its `error[kind]: ...` blocks. */
function problems(output: string): DocProblem[] {
  const blocks = output.split(/\n(?=error\[)/).filter((b) => b.startsWith("error["));
  return blocks.map((text) => ({ kind: /^error\[([^\]]+)\]/.exec(text)![1]!, text: text.trim() }));
}

/** Whether a problem is one of the two kinds zod and hono cause (see the module doc). */
function fromDependency(p: DocProblem): boolean {
  if (p.kind === "missing-explicit-type") {
    return /^\s*\d+ \| export const \w+ = z\./m.test(p.text);
  }
  if (p.kind === "private-type-ref") {
    const ref = /references private type '([^']+)'/.exec(p.text)?.[1];
    return ref !== undefined && DEPENDENCY_TYPES.has(ref);
  }
  return false;
}

// Each entry point on its own: linted together, a type one of them exports counts as
// public for all, and a reference to it from another entry point went unseen.
for (const entry of ENTRY_POINTS) {
  Deno.test(`deno doc --lint ${entry} reports no problem of our own`, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--lint", entry],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    const found = problems(text);
    const ours = found.filter((p) => !fromDependency(p));
    if (ours.length > 0) console.log(ours.map((p) => p.text).join("\n\n"));
    assert.deepEqual(
      ours.map((p) => p.text.split("\n").slice(0, 2).join(" ")),
      [],
      `${ours.length} documentation problem(s), printed above`,
    );
    // The run itself worked: no problem at all means exit 0, and every problem is a block.
    if (found.length === 0) assert.equal(out.code, 0, text);
    else assert.match(text, /Found \d+ documentation lint errors?/);
  });
}

Deno.test("the doc-lint filter keeps our own problems", () => {
  const sample = [
    "error[missing-jsdoc]: exported symbol is missing JSDoc documentation",
    "  --> src/x.ts:1:14",
    "",
    "error[private-type-ref]: public type 'A' references private type 'Mine'",
    "  --> src/x.ts:2:1",
    "",
    "error[private-type-ref]: public type 'B' references private type 'output'",
    "  --> src/x.ts:3:1",
    "",
    "error[missing-explicit-type]: exported symbol is missing an explicit type annotation",
    "  --> src/x.ts:4:14",
    "   | ",
    " 4 | export const S = z.object({",
    "",
    "error[missing-explicit-type]: exported symbol is missing an explicit type annotation",
    "  --> src/x.ts:5:14",
    "   | ",
    " 5 | export const T = makeThing();",
  ].join("\n");
  const kept = problems(sample).filter((p) => !fromDependency(p)).map((p) => p.text.split("\n")[1]);
  assert.deepEqual(kept, ["  --> src/x.ts:1:14", "  --> src/x.ts:2:1", "  --> src/x.ts:5:14"]);
});
