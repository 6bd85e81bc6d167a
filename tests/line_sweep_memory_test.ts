/**
 * A `--line` sweep shares one synthesizer (issue 30 item 2): the line is applied after
 * synthesis, so twelve lines open one flite Worker and one TTS cache, not twelve. A
 * 12-line sweep of one-trial configurations peaked at 1,223 MB (on this test's lines)
 * when each line opened its own, and at 258 MB with one; through the CLI, its peak
 * resident memory is sampled while it runs.
 */
import assert from "node:assert/strict";
import { PERMS } from "./_cli.ts";
import { sampleRss } from "./_peak_rss.ts";

// One noise-free line family, so that what grows with the lines is what each line
// opens (noise presets have their beds, cached once per preset: at most seven).
const LINES = ["clean", ...Array.from({ length: 11 }, (_, i) => `loss@${i + 1}%`)];

Deno.test("eval --line with 12 lines: one synthesizer for the sweep, peak memory under 400 MB", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMS,
      "cli.ts",
      "eval",
      "--domain",
      "eva_airline",
      "--agent",
      "oracle",
      "--audio",
      "--trials",
      "1",
      "--line",
      LINES.join(","),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const rss = sampleRss(child.pid);
  const out = await child.output();
  const peak = (await rss.stop()).peakMb;
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  const records = dec.decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(records.length, LINES.length * 4, "the 4 eva fixtures under every line");
  assert.deepEqual(new Set(records.map((r) => r.label)), new Set(LINES));
  assert.ok(peak > 0, "memory was sampled");
  assert.ok(peak < 400, `peak resident memory ${peak.toFixed(0)} MB over 12 lines`);
  console.log(`12-line sweep: peak RSS ${peak.toFixed(0)} MB`);
});
