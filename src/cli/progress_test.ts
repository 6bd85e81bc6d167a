import { deepEqual } from "node:assert/strict";
import { progressBar, progressLines } from "./progress.ts";

function harness() {
  let t = 0;
  const lines: string[] = [];
  const p = progressLines({ err: (l) => lines.push(l) }, "eval", {
    now: () => t,
    timer: false,
  });
  return { p, lines, advance: (ms: number) => (t += ms) };
}

Deno.test("progress lines: one per 5% of the total and one at the end, with rate and ETA", () => {
  const { p, lines, advance } = harness();
  for (let done = 1; done <= 40; done++) {
    advance(500);
    p.update({ done, total: 40, failed: done >= 10 ? 1 : 0, errors: done >= 30 ? 2 : 0 });
  }
  deepEqual(lines.length, 20);
  deepEqual(lines[0], "eval: 2/40 done (5%), 2.00/s, ETA 19 s");
  deepEqual(lines[4], "eval: 10/40 done (25%), 9 passed, 1 failed, 2.00/s, ETA 15 s");
  deepEqual(lines[19], "eval: 40/40 done (100%), 37 passed, 1 failed, 2 error(s), 2.00/s");
  // Nothing after the end.
  advance(60_000);
  p.tick();
  deepEqual(lines.length, 20);
});

Deno.test("progress lines: a line every 10 s while nothing completes, none sooner", () => {
  const { p, lines, advance } = harness();
  p.update({ done: 0, total: 1000 });
  advance(9_999);
  p.tick();
  deepEqual(lines, []);
  advance(1);
  p.tick();
  deepEqual(lines, ["eval: 0/1000 done (0%), 0.00/s"]);
  advance(5_000);
  p.tick();
  deepEqual(lines.length, 1);
  advance(5_000);
  p.update({ done: 3, total: 1000 });
  p.tick();
  deepEqual(lines, [
    "eval: 0/1000 done (0%), 0.00/s",
    "eval: 3/1000 done (0%), 0.15/s, ETA 6647 s",
  ]);
});

Deno.test("progress lines: an unknown total (a streamed input) counts what is done", () => {
  const { p, lines, advance } = harness();
  advance(10_000);
  p.update({ done: 5 });
  p.tick();
  deepEqual(lines, ["eval: 5 done, 0.50/s"]);
});

Deno.test("progress lines: a run whose trials all erred says none passed, not just 100%", () => {
  const { p, lines, advance } = harness();
  for (let done = 1; done <= 4; done++) {
    advance(1000);
    p.update({ done, total: 4, failed: 0, errors: done });
  }
  deepEqual(lines.at(-1), "eval: 4/4 done (100%), 0 passed, 4 error(s), 1.00/s");
});

Deno.test("progress bar: failures, errors and the ETA, as the plain lines say them", () => {
  let t = 0;
  const drawn: string[] = [];
  const bar = progressBar({ err: () => {}, errPartial: (l) => drawn.push(l) }, { now: () => t });
  t = 2000;
  bar({ done: 4, total: 10, failed: 1, errors: 1 });
  deepEqual(
    drawn[0],
    "\r[############..................] 4/10 done (40%), 2 passed, 1 failed, 1 error(s), 2.00/s, ETA 3 s",
  );
  t = 5000;
  bar({ done: 10, total: 10, failed: 1, errors: 1 });
  deepEqual(
    drawn[1]!.endsWith("10/10 done (100%), 8 passed, 1 failed, 1 error(s), 2.00/s\n"),
    true,
  );
});
