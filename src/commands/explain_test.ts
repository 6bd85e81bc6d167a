import { deepEqual as assertEquals, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../cli/io.ts";
import { command as evalCommand } from "./eval.ts";
import { command as scoreCommand } from "./score.ts";
import { command } from "./explain.ts";

/** One noop trial of each tau2_retail fixture scenario, in `dir`. */
async function noopRun(dir: string): Promise<string> {
  const io = memoryIo("", { EVAL_DATA_ROOT: "fixtures" });
  const args = ["--domain", "tau2_retail", "--agent", "noop", "--out", dir, "--workers", "0"];
  equal(await evalCommand.main(args, io), 0);
  return dir;
}

Deno.test("explain prints where a failing tau2_retail trial's world differs from the expected one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = await noopRun(join(dir, "run"));
    const io = memoryIo();
    equal(await command.main(["tau2_retail__2:0", out], io), 0);
    const text = io.stdout.join("\n");
    ok(text.startsWith("tau2_retail__2 · trial 0 · config "), text);
    ok(text.includes("result: failed (db_state_match)"));
    ok(text.includes('orders."#W5100002".status: expected "cancelled", got "pending"'), text);
    ok(text.includes("is_action_match (not gating): reference action #0"));
    ok(text.includes("tool calls:\n    0.0s agent end_conversation({})"));

    // The same from the verdicts, and from one verdict given as the key.
    const scored = memoryIo();
    await scoreCommand.main([join(out, "trials.jsonl")], scored);
    const verdict = scored.stdout.find((l) => l.includes('"tau2_retail__2"'))!;
    const fromVerdict = memoryIo();
    equal(await command.main([verdict], fromVerdict), 0);
    equal(fromVerdict.stdout.join("\n"), text);

    const json = memoryIo(scored.stdout.join("\n") + "\n");
    equal(await command.main(["tau2_retail__2", "--json"], json), 0);
    const [line] = json.stdout.map((l) => JSON.parse(l));
    equal(line.key[0], "tau2_retail__2");
    equal(line.failures[0].signal, "db_state_match");
    ok(
      line.failures[0].details.includes(
        'orders."#W5100002".status: expected "cancelled", got "pending"',
      ),
    );
    assertEquals(json.stdout.length, 1);

    await rejects(command.main(["tau2_retail__9", out], memoryIo()), /no trial matches/);
    // No file, at a terminal: said at once, not waited on.
    const tty = { ...memoryIo(), stdinIsTerminal: true };
    await rejects(command.main(["tau2_retail__2"], tty), /no verdicts were given/);
    // A folder alone: each trial that did not pass (the noop fails all three).
    const all = memoryIo();
    equal(await command.main([out], all), 0);
    equal(all.stdout.filter((l) => / · trial 0 · config /.test(l)).length, 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("explain: a KEY that starts as JSON but is not is a located input error", async () => {
  for (const key of ["{bad", '["tau2_retail__2",0']) {
    await rejects(command.main([key, "-"], memoryIo("")), (e: Error) => {
      equal(e.name, "InputError");
      ok(/invalid JSON at column \d+/.test(e.message), e.message);
      return true;
    });
  }
});
