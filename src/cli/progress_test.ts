import { deepEqual } from "node:assert/strict";
import { progressLines } from "./progress.ts";

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
  deepEqual(lines[0], "eval: 2/40 (5%), 2.00/s, ETA 19 s");
  deepEqual(lines[4], "eval: 10/40 (25%), 1 failed, 2.00/s, ETA 15 s");
  deepEqual(lines[19], "eval: 40/40 (100%), 1 failed, 2 error(s), 2.00/s");
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
  deepEqual(lines, ["eval: 0/1000 (0%), 0.00/s"]);
  advance(5_000);
  p.tick();
  deepEqual(lines.length, 1);
  advance(5_000);
  p.update({ done: 3, total: 1000 });
  p.tick();
  deepEqual(lines, ["eval: 0/1000 (0%), 0.00/s", "eval: 3/1000 (0%), 0.15/s, ETA 6647 s"]);
});

Deno.test("progress lines: an unknown total (a streamed input) counts what is done", () => {
  const { p, lines, advance } = harness();
  advance(10_000);
  p.update({ done: 5 });
  p.tick();
  deepEqual(lines, ["eval: 5 done, 0.50/s"]);
});
