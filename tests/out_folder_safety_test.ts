/**
 * `eval --out`: what is planted in the output folder never redirects a write or hangs
 * the run (issue 30 items 3, 11 and 17), through the CLI with the task's permissions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Captured, PERMS } from "./_cli.ts";

/** `cli.ts` with the task's permissions, killed after `ms` (a hang is a failure, not a stall). */
async function cliWithin(args: string[], ms = 60_000): Promise<Captured & { timedOut: boolean }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, ms);
  const out = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    timedOut,
  };
}

const retail = (out: string, ...more: string[]) =>
  cliWithin(["eval", "--domain", "tau2_retail", "--agent", "oracle", "--out", out, ...more]);

const lines = (text: string) => text.trim().split("\n").filter(Boolean);

Deno.test("eval --resume refuses a trials.jsonl linked to /dev/zero, at once and without growing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-out-" });
  try {
    await Deno.symlink("/dev/zero", join(dir, "trials.jsonl"));
    const started = performance.now();
    const r = await retail(dir, "--resume");
    assert.equal(r.timedOut, false, "eval --resume read /dev/zero for 60 s");
    assert.equal(r.code, 2, r.stderr.slice(0, 500));
    assert.match(
      r.stderr,
      /trials\.jsonl: field "--out": is a symbolic link: records are read from and written to a regular file only/,
    );
    assert.ok(performance.now() - started < 30_000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --resume refuses a FIFO as trials.jsonl instead of waiting on it forever", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-out-" });
  try {
    const fifo = join(dir, "trials.jsonl");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.equal(made.code, 0);
    const r = await retail(dir, "--resume");
    assert.equal(r.timedOut, false, "eval --resume waited on the FIFO for 60 s");
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /trials\.jsonl: field "--out": is a FIFO: records are read from and written to a regular file only/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval never writes through a link in --out: trials.jsonl, transcripts and WAVs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-out-" });
  try {
    const victim = join(dir, "victim.txt");
    await Deno.writeTextFile(victim, "keep me\n");
    // A folder whose records file is a link to another file: refused, that file untouched.
    const linked = join(dir, "linked");
    await Deno.mkdir(linked);
    await Deno.symlink(victim, join(linked, "trials.jsonl"));
    const refused = await retail(linked);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /is a symbolic link/);
    assert.equal(await Deno.readTextFile(victim), "keep me\n");

    // Transcripts and recordings: a first run names them; links planted under those
    // names in a fresh folder are replaced, never written through.
    const first = join(dir, "first");
    const audio = ["--domain", "eva_airline", "--audio", "--trials", "1"];
    const one = await cliWithin(["eval", "--agent", "oracle", ...audio, "--out", first]);
    assert.equal(one.code, 0, one.stderr);
    const transcripts = [...Deno.readDirSync(join(first, "transcripts"))].map((e) => e.name);
    const wavs = [...Deno.readDirSync(join(first, "audio"))].map((e) => e.name);
    assert.ok(transcripts.length === 4 && wavs.length === 4, `${transcripts} ${wavs}`);
    const second = join(dir, "second");
    await Deno.mkdir(join(second, "transcripts"), { recursive: true });
    await Deno.mkdir(join(second, "audio"));
    for (const t of transcripts) await Deno.symlink(victim, join(second, "transcripts", t));
    for (const w of wavs) await Deno.symlink(victim, join(second, "audio", w));
    const two = await cliWithin(["eval", "--agent", "oracle", ...audio, "--out", second]);
    assert.equal(two.code, 0, two.stderr);
    assert.equal(await Deno.readTextFile(victim), "keep me\n");
    for (const t of transcripts) {
      assert.ok(Deno.lstatSync(join(second, "transcripts", t)).isFile, t);
    }
    for (const w of wavs) {
      const info = Deno.lstatSync(join(second, "audio", w));
      assert.ok(info.isFile && info.size > 44, w);
    }
    for (const r of lines(two.stdout).map((l) => JSON.parse(l))) {
      assert.equal(r.audio.wav_error, undefined);
    }
    // A folder of recordings that is itself a link is not written through either.
    const third = join(dir, "third");
    const elsewhere = join(dir, "elsewhere");
    await Deno.mkdir(third);
    await Deno.mkdir(elsewhere);
    await Deno.symlink(elsewhere, join(third, "audio"));
    const three = await cliWithin(["eval", "--agent", "oracle", ...audio, "--out", third]);
    assert.equal(three.code, 0, three.stderr);
    assert.deepEqual([...Deno.readDirSync(elsewhere)], []);
    for (const r of lines(three.stdout).map((l) => JSON.parse(l))) {
      assert.match(r.audio.wav_error, /is a symbolic link, not a folder/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --resume redoes, and says so, a line that is not a whole valid trial record", async () => {
  const dir = join(await Deno.makeTempDir({ prefix: "callbench-out-" }), "run");
  const first = await retail(dir);
  assert.equal(first.code, 0, first.stderr);
  const file = join(dir, "trials.jsonl");
  const held = lines(await Deno.readTextFile(file));
  assert.equal(held.length, 3);
  // The second record cut down to its key and status, as if it were finished.
  const { key } = JSON.parse(held[1]!);
  await Deno.writeTextFile(
    file,
    [held[0], JSON.stringify({ key, status: "completed" }), "not json", held[2]].join("\n") + "\n",
  );
  const resumed = await retail(dir, "--resume");
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(
    resumed.stderr,
    /trials\.jsonl:2: not a whole trial record \([^)]*\); left out, its trial runs again/,
  );
  assert.match(resumed.stderr, /trials\.jsonl:3: not JSON; left out, its trial runs again/);
  assert.match(resumed.stderr, /1 trial\(s\) run, 2 already done/);
  const now = lines(await Deno.readTextFile(file)).map((l) => JSON.parse(l));
  assert.equal(now.length, 3);
  assert.deepEqual(
    now.map((r) => r.key.scenario).sort(),
    held.map((l) => JSON.parse(l).key.scenario).sort(),
  );
  // The folder is whole again: score takes it.
  const scored = await cliWithin(["score", file]);
  assert.equal(scored.code, 0, scored.stderr);
  assert.equal(lines(scored.stdout).length, 3);
});
