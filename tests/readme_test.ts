/** The README's examples, run as a reader would run them. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";

const README = Deno.readTextFileSync(new URL("../README.md", import.meta.url));

/** The fenced block of `lang` whose text starts with `start`. */
function block(lang: string, start: string): string {
  const open = README.indexOf("```" + lang + "\n" + start);
  assert.ok(open >= 0, `README has a ${lang} block starting ${start}`);
  const body = open + lang.length + 4;
  return README.slice(body, README.indexOf("```", body));
}

Deno.test("README: the from-scratch scenario is refused as shown, then gold, validate and the oracle pass", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-readme-" });
  const file = join(dir, "mine.yaml");
  Deno.writeTextFileSync(file, block("yaml", "name: mine__lamp_exchange"));
  // "validate refuses this as it stands: db_state_match needs expect.db_sha256"
  const refused = await cli(["validate", file]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /db_state_match/);
  const gold = await cli(["gold", file]);
  assert.equal(gold.code, 0, gold.stderr);
  const hash = JSON.parse(gold.stdout.trim()).expected_db_sha256 as string;
  assert.match(hash, /^[0-9a-f]{64}$/);
  Deno.writeTextFileSync(
    file,
    Deno.readTextFileSync(file).replace(
      "expect:\n",
      `expect:\n  db_sha256: "${hash}"\n`,
    ),
  );
  const valid = await cli(["validate", file]);
  assert.equal(valid.code, 0, valid.stderr);
  const ev = await cli(["eval", file, "--agent", "oracle"]);
  assert.equal(ev.code, 0, ev.stderr);
  const verdict = JSON.parse((await cli(["score"], ev.stdout)).stdout.trim());
  assert.equal(verdict.is_successful, true, JSON.stringify(verdict.signals));
  assert.equal(verdict.signals.clean_exit, true);
  assert.equal(verdict.signals.db_state_match, true);
});
