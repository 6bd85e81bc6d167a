/**
 * End-to-end timing of `score` and `report` over generated trial records (default
 * 100 000): JSON Lines files in, through each command's `main`, as `cli.ts score
 * trials.jsonl > verdicts.jsonl; cli.ts report verdicts.jsonl` does (minus the process
 * start and stdout writes).
 *
 *   deno run --allow-read --allow-write=/tmp scripts/bench_score_report.ts [COUNT]
 *
 * @module
 */
import type { Io } from "../src/cli/io.ts";
import { command as score } from "../src/commands/score.ts";
import { command as report } from "../src/commands/report.ts";
import { generatedTrials } from "../src/score/_generated_trials.ts";

const count = Number(Deno.args[0] ?? 100_000);

function io(): Io & { lines: string[] } {
  const lines: string[] = [];
  return {
    stdin: new Blob([]).stream(),
    stdinIsTerminal: false,
    out: (l) => void lines.push(l),
    err: () => {},
    errIsTerminal: false,
    env: () => undefined,
    flush: () => Promise.resolve(),
    lines,
  };
}

async function timed<T>(what: string, f: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await f();
  const ms = performance.now() - start;
  console.log(`${what.padEnd(34)} ${(ms / 1000).toFixed(2).padStart(6)} s`);
  return result;
}

const dir = await Deno.makeTempDir({ prefix: "callbench_bench_" });
try {
  const trials = `${dir}/trials.jsonl`;
  await timed(`generate ${count} trial records`, () =>
    Deno.writeTextFile(
      trials,
      generatedTrials(count).map((r) => JSON.stringify(r)).join("\n") + "\n",
    ));
  console.log(`${"trial records".padEnd(34)} ${mib((await Deno.stat(trials)).size)} MiB`);

  const scored = io();
  await timed(`score ${count} records`, () => score.main([trials], scored));
  const verdicts = `${dir}/verdicts.jsonl`;
  await Deno.writeTextFile(verdicts, scored.lines.join("\n") + "\n");
  console.log(`${"verdicts".padEnd(34)} ${mib((await Deno.stat(verdicts)).size)} MiB`);

  for (const format of ["json", "md", "html"]) {
    const out = io();
    await timed(
      `report --format ${format}`,
      () => report.main(["--format", format, verdicts], out),
    );
    console.log(`${"  output".padEnd(34)} ${mib(out.lines.join("\n").length)} MiB`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1).padStart(6);
}
