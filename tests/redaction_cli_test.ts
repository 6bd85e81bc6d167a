/** Credentials in `--agent` never reach a record, a transcript or stderr. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...await filesUnder(p));
    else out.push(p);
  }
  return out;
}

Deno.test("eval: userinfo and secret-named query values of the agent URL are redacted everywhere", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-redact-" });
  const url = "ws://bob:PASS_1@127.0.0.1:9/ws?api_key=KEY_2&token=TOK_3&password=PW_4&x=1";
  const r = await cli([
    "eval",
    "--domain",
    "tau2_retail",
    "--agent",
    url,
    "--trials",
    "1",
    "--out",
    join(dir, "out"),
  ]);
  assert.equal(r.code, 1, r.stderr); // unreachable: infrastructure errors
  const texts = [r.stdout, r.stderr];
  for (const f of await filesUnder(join(dir, "out"))) texts.push(Deno.readTextFileSync(f));
  assert.ok(texts.length >= 4);
  for (const text of texts) {
    assert.doesNotMatch(text, /PASS_1|KEY_2|TOK_3|PW_4|bob/);
  }
  assert.match(r.stderr, /ws:\/\/\*\*\*@127\.0\.0\.1:9\/ws\?api_key=\*\*\*&password=\*\*\*&x=1/);
  const record = JSON.parse(r.stdout.split("\n")[0]!);
  assert.equal(
    record.participants.agent.url,
    "ws://***@127.0.0.1:9/ws?api_key=***&password=***&x=1",
  );
});
