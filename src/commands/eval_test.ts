import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../cli/io.ts";
import { command } from "./eval.ts";
import type { TrialRecord } from "../runner/trial_record.ts";

const FIXTURES = "fixtures";

/** An Io whose stdout breaks (the reader went away) after `lines` lines. */
function closingStdout(lines: number, stdin = "") {
  const io = memoryIo(stdin, { EVAL_DATA_ROOT: FIXTURES });
  const out = io.out;
  io.out = (l) => {
    if (io.stdout.length >= lines) throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
    out(l);
  };
  return io;
}

/** An Io whose user presses Ctrl-C once `lines` lines are out. */
function interruptingIo(lines: number) {
  let interrupt = () => {};
  const io = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  io.onInterrupt = (handler) => {
    interrupt = handler;
    return () => (interrupt = () => {});
  };
  const out = io.out;
  io.out = (l) => {
    out(l);
    if (io.stdout.length === lines) interrupt();
  };
  return io;
}

function folderRecords(dir: string): TrialRecord[] {
  return Deno.readTextFileSync(join(dir, "trials.jsonl")).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
}

Deno.test("eval: an empty pipe on stdin is an input error, not the whole benchmark", async () => {
  const io = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  await assert.rejects(
    () => command.main(["--agent", "oracle"], io),
    (e: Error) => e.name === "InputError" && /no scenario references on stdin/.test(e.message),
  );
  assert.deepEqual(io.stdout, []);
  // --all selects everything without reading stdin; so does a terminal.
  const all = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  assert.equal(await command.main(["--agent", "oracle", "--all"], all), 0);
  assert.ok(all.stdout.length > 1);
  const tty = { ...memoryIo("", { EVAL_DATA_ROOT: FIXTURES }), stdinIsTerminal: true };
  const ttyOut: string[] = [];
  tty.out = (l) => ttyOut.push(l);
  assert.equal(await command.main(["--agent", "oracle"], tty), 0);
  assert.equal(ttyOut.length, all.stdout.length);
  await assert.rejects(
    () => command.main(["--agent", "oracle", "--all", "--domain", "eva_airline"], memoryIo()),
    /--all/,
  );
});

Deno.test("eval: without --out a closed stdout stops the run and exits 1 with a message", async () => {
  const io = closingStdout(1);
  const code = await command.main(["--agent", "oracle", "--all", "--concurrency", "1"], io);
  assert.equal(code, 1);
  assert.equal(io.stdout.length, 1);
  assert.match(io.stderr.join("\n"), /stdout closed after 1 trial record\(s\); stopped/);
});

Deno.test("eval: with --out a closed stdout does not stop the run; every record reaches the folder", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = closingStdout(1);
    const code = await command.main(
      ["--agent", "oracle", "--all", "--concurrency", "1", "--out", dir],
      io,
    );
    assert.equal(code, 0);
    const all = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
    await command.main(["--agent", "oracle", "--all"], all);
    assert.equal(folderRecords(dir).length, all.stdout.length);
    assert.match(io.stderr.join("\n"), /stdout closed during the run; every record is in/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: Ctrl-C stops the run, says what was recorded and that --resume continues: 130", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = interruptingIo(2);
    const args = ["--agent", "oracle", "--all", "--concurrency", "1", "--out", dir];
    assert.equal(await command.main(args, io), 130);
    assert.equal(folderRecords(dir).length, 2);
    assert.match(
      io.stderr.join("\n"),
      /interrupted; 2 of \d+ trial\(s\) of this run recorded in .*trials\.jsonl; run the same command with --resume to continue/,
    );
    const resumed = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
    assert.equal(await command.main([...args, "--resume"], resumed), 0);
    assert.match(resumed.stderr.join("\n"), /, 2 already done,/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval: infrastructure errors are listed by kind with their first message", async () => {
  const io = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  const code = await command.main([
    "--agent",
    "ws://127.0.0.1:9/ws",
    "--connect-attempts",
    "1",
    "--domain",
    "eva_airline",
  ], io);
  assert.equal(code, 1);
  const err = io.stderr.join("\n");
  assert.match(err, /\n {2}agent_unreachable: \d+ trial\(s\); first: agent: .*127\.0\.0\.1:9/);
});

Deno.test("eval: without --agent the oracle baseline runs, saying so; with a model, the llm agent", async () => {
  const io = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  assert.equal(await command.main(["--domain", "eva_airline"], io), 0);
  assert.match(io.stderr[0]!, /no --agent given .*: running the oracle baseline/);
  assert.equal(io.stderr.filter((l) => /no --agent/.test(l)).length, 1);
  assert.ok(io.stdout.every((l) => JSON.parse(l).participants.agent.kind === "oracle"));
  // A configured model picks llm (here without a base URL: llm's own check answers).
  const llm = memoryIo("", { EVAL_DATA_ROOT: FIXTURES, CALLBENCH_AGENT_MODEL: "m" });
  await assert.rejects(
    () => command.main(["--domain", "eva_airline"], llm),
    /"llm" needs a model and a base URL/,
  );
  assert.match(llm.stderr[0]!, /running the llm agent with model "m"/);
});

Deno.test("eval --label is recorded and changes the config hash", async () => {
  const plain = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  await command.main(["--agent", "oracle", "--domain", "eva_airline"], plain);
  const labelled = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
  await command.main(["--agent", "oracle", "--domain", "eva_airline", "--label", "v2"], labelled);
  const a = JSON.parse(plain.stdout[0]!) as TrialRecord;
  const b = JSON.parse(labelled.stdout[0]!) as TrialRecord;
  assert.equal(a.label, undefined);
  assert.equal(b.label, "v2");
  assert.notEqual(a.key.config_hash, b.key.config_hash);
  await assert.rejects(() => command.main(["--label", " ", "--all"], memoryIo()), /--label/);
  await assert.rejects(() => command.main(["--retry-errors", "--all"], memoryIo()), /--resume/);
});

/** Records without their wall-clock times, by trial key. */
function stableRecords(lines: string[]): Map<string, string> {
  return new Map(lines.map((l) => {
    const { timings: _t, started_at: _s, ...rest } = JSON.parse(l) as TrialRecord;
    return [`${rest.key.scenario}/${rest.key.trial}`, JSON.stringify(rest)];
  }));
}

Deno.test("eval --workers 2: scenario files (an edited one shadowing the data root's) and a script agent run in workers", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { command: scaffold } = await import("./scaffold.ts");
    await scaffold.main(["--domain", "eva_airline", "--out", dir], memoryIo());
    const file = join(dir, "eva_airline__1_4_1.yaml");
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, text.replace("\ndescription: ", "\ndescription: Edited. "));
    const script = await Deno.makeTempFile({ suffix: ".yaml" });
    await Deno.writeTextFile(
      script,
      '- after: speech\n  press: "1"\n- say: Hello\n- hangup: true\n',
    );
    const runs: Record<string, string[]> = {};
    for (const workers of ["1", "2"]) {
      const files = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
      const flows = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
      const common = ["--trials", "2", "--concurrency", "4", "--workers", workers];
      assert.equal(await command.main([dir, "--agent", "oracle", ...common], files), 0);
      assert.equal(
        await command.main(["scenarios/flows", "--agent", `script:${script}`, ...common], flows),
        0,
        flows.stderr.join("\n"),
      );
      runs[workers] = [...files.stdout, ...flows.stdout];
    }
    assert.ok(runs["2"]!.length > 4 * 2);
    assert.equal(runs["2"]!.length, runs["1"]!.length);
    assert.ok(runs["2"]!.some((l) => JSON.parse(l).participants.agent.kind === "script"));
    assert.deepEqual(stableRecords(runs["2"]!), stableRecords(runs["1"]!));
    await Deno.remove(script);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --workers 2: Ctrl-C stops every worker (130) and --resume finishes the run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = interruptingIo(2);
    const args = ["--agent", "oracle", "--all", "--workers", "2", "--concurrency", "2"];
    assert.equal(await command.main([...args, "--out", dir], io), 130);
    const kept = folderRecords(dir).length;
    assert.ok(kept >= 2, `kept ${kept}`);
    // What it says was recorded is what the folder holds (a trial in mid-write too).
    const said = /interrupted; (\d+) of \d+ trial\(s\)/.exec(io.stderr.join("\n"));
    assert.equal(Number(said?.[1]), kept, io.stderr.join("\n"));
    const resumed = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
    assert.equal(await command.main([...args, "--out", dir, "--resume"], resumed), 0);
    assert.match(resumed.stderr.join("\n"), new RegExp(`, ${kept} already done,`));
    const all = folderRecords(dir);
    const inProcess = memoryIo("", { EVAL_DATA_ROOT: FIXTURES });
    await command.main(["--agent", "oracle", "--all", "--workers", "0"], inProcess);
    assert.equal(all.length, inProcess.stdout.length);
    assert.equal(new Set(all.map((r) => `${r.key.scenario}/${r.key.trial}`)).size, all.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --workers takes an integer >= 0", async () => {
  await assert.rejects(
    () => command.main(["--agent", "oracle", "--all", "--workers=-1"], memoryIo()),
    /--workers.*expected an integer >= 0/,
  );
});

Deno.test("eval --silence takes seconds a timer can wait: not 0, NaN, Infinity or past 2^31-1 ms", async () => {
  for (const bad of ["0", "abc", "Infinity", "1e10"]) {
    await assert.rejects(
      () => command.main(["--agent", "oracle", "--all", `--silence=${bad}`], memoryIo()),
      /--silence.*expected seconds > 0 \(at most 2147483\)/,
      bad,
    );
  }
});

Deno.test("eval: a listed data root that is gone is named as coming from the references on stdin", async () => {
  const gone = join(await Deno.makeTempDir(), "gone");
  const ref = JSON.stringify({ name: "tau2_retail__0", data_root: gone });
  await assert.rejects(
    () => command.main(["--agent", "oracle"], memoryIo(ref + "\n")),
    (e: Error) => {
      assert.match(e.message, /gone.*\(from the scenario references on stdin\)/);
      return true;
    },
  );
  // EVAL_DATA_ROOT wins over the listed root.
  await assert.rejects(
    () => command.main(["--agent", "oracle"], memoryIo(ref + "\n", { EVAL_DATA_ROOT: gone + "2" })),
    /gone2.*\(from EVAL_DATA_ROOT\)/,
  );
});
