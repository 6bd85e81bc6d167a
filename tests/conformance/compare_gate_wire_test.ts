/**
 * The regression gate against a real bot over the wire (issue 32 §1): `serve` hosts the
 * oracle over RTVI WebSocket on loopback and `eval --agent ws://…` calls it.
 *
 * - The same bot run four times (3 scenarios × 3 trials) and compared pairwise with
 *   `compare --fail-on-regression`: no comparison fails (its latency differs by noise).
 * - Version 2 of the bot, which hangs up without acting on three scenarios, against
 *   version 1 on all 50 eva scenarios with 2 trials: exit 1, naming the three.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../../src/cli/io.ts";
import { builtinFactory } from "../../src/commands/serve.ts";
import { command as compareCommand } from "../../src/commands/compare.ts";
import { command as evalCommand } from "../../src/commands/eval.ts";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { evaScenarioName } from "../../src/scenario/eva/record.ts";
import { serve } from "../../src/server/serve.ts";
import type { HostedParticipantFactory } from "../../src/server/participant_line.ts";
import { DATA_ROOT, requireDataRoot } from "./_data_root.ts";

const FLIPPED = ["eva_airline__1_1_3", "eva_airline__2_3_2", "eva_airline__4_1_1"];

/** Version 2 of the bot: the oracle, except that on `broken` it plays the noop agent. */
function v2(root: DataRoot, broken: readonly string[]): HostedParticipantFactory {
  const inner = builtinFactory(root);
  return (name, setup) =>
    inner(
      setup.side === "agent" && broken.includes(setup.scenario ?? "") ? "noop" : name,
      setup,
    );
}

async function evalOver(url: string, out: string, args: string[]): Promise<void> {
  const io = memoryIo("", { EVAL_DATA_ROOT: DATA_ROOT });
  const code = await evalCommand.main(
    ["--agent", url, "--out", out, "--workers", "0", "--concurrency", "4", ...args],
    io,
  );
  assert.equal(code, 0, io.stderr.join("\n"));
}

async function compare(a: string, b: string) {
  const io = memoryIo();
  const code = await compareCommand.main([a, b, "--fail-on-regression"], io);
  return { code, stderr: io.stderr };
}

Deno.test({
  name:
    "compare --fail-on-regression over the wire: the same bot ×4 never fails; v2 on 50 eva scenarios fails naming the three it broke",
  // The served scripted caller's goodbye timer may still be pending when the server stops.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    requireDataRoot();
    const root = new DataRoot(DATA_ROOT);
    const known =
      (await Deno.readTextFile(join(DATA_ROOT, "eva_airline/eva_airline_dataset.jsonl")))
        .trim().split("\n").map((l) => evaScenarioName(JSON.parse(l).id));
    for (const s of FLIPPED) assert.ok(known.includes(s), `${s} is an eva scenario`);

    const dir = await Deno.makeTempDir({ prefix: "callbench-gate-wire-" });
    const one = await serve({
      hostname: "127.0.0.1",
      port: 0,
      factory: builtinFactory(root),
      dataRoot: root,
    });
    const two = await serve({
      hostname: "127.0.0.1",
      port: 0,
      factory: v2(root, FLIPPED),
      dataRoot: root,
    });
    try {
      // The same bot, four runs of 3 scenarios × 3 trials.
      const three = ["--scenarios", FLIPPED.join(","), "--trials", "3"];
      const runs: string[] = [];
      for (let i = 0; i < 4; i++) {
        const out = join(dir, `same${i}`);
        await evalOver(one.url, out, [...three, "--label", `same${i}`]);
        runs.push(out);
      }
      for (let i = 0; i < runs.length; i++) {
        for (let j = i + 1; j < runs.length; j++) {
          const r = await compare(runs[i]!, runs[j]!);
          assert.equal(r.code, 0, r.stderr.join("\n"));
          assert.ok(r.stderr.includes("compare: no regression"), r.stderr.join("\n"));
        }
      }

      // v1 and v2 on all 50 eva scenarios, 2 trials each.
      const all = ["--domain", "eva_airline", "--trials", "2"];
      await evalOver(one.url, join(dir, "v1"), [...all, "--label", "v1"]);
      await evalOver(two.url, join(dir, "v2"), [...all, "--label", "v2"]);
      const r = await compare(join(dir, "v1"), join(dir, "v2"));
      assert.equal(r.code, 1, r.stderr.join("\n"));
      const named = r.stderr.flatMap((l) => {
        const m = /^compare: regression: scenario (\S+): 2\/2 → 0\/2$/.exec(l);
        return m ? [m[1]!] : [];
      });
      assert.deepEqual(named, FLIPPED, r.stderr.join("\n"));
      console.log(r.stderr.filter((l) => l.startsWith("compare: gate: overall")).join("\n"));
    } finally {
      await one.shutdown();
      await two.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
