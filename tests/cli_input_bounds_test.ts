/**
 * What a user or a peer supplies, as the commands take and print it (issue 30): flags
 * parsed strictly, error messages that quote at most a few hundred characters of the
 * input, and no control byte of a peer's text on a terminal.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";

const evalEva = (...more: string[]) =>
  cli(["eval", "--domain", "eva_airline", "--agent", "oracle", "--audio", ...more]);

Deno.test("eval --caller-behaviour is parsed strictly: anything after a chance is refused", async () => {
  for (const bad of ["backchannel=0.5=junk", "backchannel=0x1", "filler=0.2,late=1e-1", "side= "]) {
    const r = await evalEva("--caller-behaviour", bad, "--trials", "1");
    assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
    assert.match(r.stderr, /--caller-behaviour.*expected a chance from 0 to 1/, bad);
    assert.equal(r.stdout, "", bad);
  }
  // `.5` and `20%` are the chances 0.5 and 0.2: the same configuration.
  const hash = async (behaviour: string) => {
    const r = await evalEva("--caller-behaviour", behaviour, "--trials", "1");
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.split("\n")[0]!).key.config_hash;
  };
  assert.equal(await hash("backchannel=.5,filler=20%"), await hash("backchannel=0.5,filler=0.2"));
});

Deno.test("a 100 kB voice name or behaviour name makes an error of a few hundred characters", async () => {
  // argv takes at most 128 kB per argument (Linux).
  const huge = "x".repeat(100_000);
  for (
    const args of [
      ["--user-voice", huge],
      ["--agent-voice", huge],
      ["--caller-behaviour", `${huge}=0.5`],
      ["--caller-behaviour", `late=${huge}`],
    ]
  ) {
    const r = await evalEva(...args);
    assert.equal(r.code, 2, r.stderr.slice(0, 300));
    assert.ok(r.stderr.length < 1000, `${args[0]}: ${r.stderr.length} characters`);
  }
  const served = await cli(["serve", "--audio", "--port", "0", "--voice", huge]);
  assert.equal(served.code, 2);
  assert.ok(served.stderr.length < 1000, `serve --voice: ${served.stderr.length} characters`);
  assert.match(served.stderr, /unknown flite voice "x{200}…" \(100000 characters\)/);
});
