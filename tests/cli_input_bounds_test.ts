/**
 * What a user or a peer supplies, as the commands take and print it (issue 30): flags
 * parsed strictly, error messages that quote at most a few hundred characters of the
 * input, and no control byte of a peer's text on a terminal.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { rtviFloodAgent } from "./_flood_agents.ts";

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

Deno.test("a peer's terminal escapes never reach a terminal: eval's stderr, explain, report --format md", async () => {
  // An agent whose fatal error retitles the window, rings the bell and clears the screen.
  const hostile = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x9b1m";
  const agent = rtviFloodAgent("fatal_kind", { kind: "agent_error", errorText: hostile });
  try {
    const ev = await cli(["eval", "--domain", "tau2_retail", "--agent", agent.url]);
    assert.match(ev.stdout, /owned/, ev.stderr);
    // deno-lint-ignore no-control-regex
    const controls = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
    assert.match(ev.stderr, /owned/);
    assert.doesNotMatch(ev.stderr, controls, "eval's stderr");
    const scored = await cli(["score"], ev.stdout);
    assert.equal(scored.code, 0, scored.stderr);
    const verdicts = await Deno.makeTempFile({ suffix: ".jsonl" });
    await Deno.writeTextFile(verdicts, scored.stdout);
    const scenario = JSON.parse(ev.stdout.split("\n")[0]!).key.scenario;
    const explained = await cli(["explain", scenario, verdicts]);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /owned/);
    assert.doesNotMatch(explained.stdout, controls, "explain");
    const md = await cli(["report", "--format", "md"], scored.stdout);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /owned/);
    assert.doesNotMatch(md.stdout, controls, "report --format md");
  } finally {
    await agent.close();
  }
});

Deno.test("a scenario file's 1 MB voice name is refused in one short line, never carried into a record", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-voice-" });
  try {
    const made = await cli(["scaffold", "--domain", "eva_airline", "--out", dir]);
    assert.equal(made.code, 0, made.stderr);
    const file = `${dir}/eva_airline__1_4_1.yaml`;
    const text = await Deno.readTextFile(file);
    assert.match(text, /^user:\n/m);
    await Deno.writeTextFile(
      file,
      text.replace(/^user:\n/m, `user:\n  voice:\n    name: ${"v".repeat(1_000_000)}\n`),
    );
    const r = await cli(["eval", file, "--agent", "oracle", "--audio"]);
    assert.equal(r.code, 2, r.stderr.slice(0, 300));
    assert.equal(r.stdout, "");
    assert.ok(r.stderr.length < 1000, `${r.stderr.length} characters`);
    assert.match(
      r.stderr,
      /field "user\.voice\.name": Too big: expected string to have <=200 characters/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
