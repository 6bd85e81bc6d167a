/**
 * A one-line progress bar on a terminal's stderr.
 *
 * @module
 */
import type { Io } from "./io.ts";

/**
 * A terminal's progress bar: `[####......] 12/40 done (30%), 9 passed, 2 failed, 1
 * error(s), 2.0/s, ETA 14 s`, redrawn in place (the same counts as the plain lines).
 */
export function progressBar(
  io: Pick<Io, "err" | "errPartial">,
  options: { now?: () => number } = {},
): (counts: ProgressCounts) => void {
  const now = options.now ?? (() => performance.now());
  const started = now();
  return (counts) => {
    const { done } = counts;
    const total = counts.total ?? done;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const rate = done / Math.max(0.001, (now() - started) / 1000);
    const line = `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ` +
      progressParts(counts, rate).join(", ");
    if (io.errPartial) io.errPartial(done === total ? line + "\n" : line);
    else if (done === total) io.err(line.slice(1));
  };
}

/**
 * The parts of a progress line: `12/40 done (30%)`, then, where failures or errors are
 * counted, how many passed, failed and erred (so a run of errors never reads as done
 * well), the rate and the ETA.
 */
export function progressParts(counts: ProgressCounts, rate: number): string[] {
  const { done, total, failed, errors } = counts;
  const counted = failed !== undefined || errors !== undefined;
  return [
    total === undefined
      ? `${done} done`
      : `${done}/${total} done (${total === 0 ? 100 : Math.floor((100 * done) / total)}%)`,
    ...(counted && (failed || errors) ? [`${done - (failed ?? 0) - (errors ?? 0)} passed`] : []),
    ...(failed ? [`${failed} failed`] : []),
    ...(errors ? [`${errors} error(s)`] : []),
    `${rate.toFixed(rate < 10 ? 2 : 1)}/s`,
    ...(total !== undefined && done < total && done > 0
      ? [`ETA ${Math.ceil((total - done) / rate)} s`]
      : []),
  ];
}

/** What a progress line reports. */
export interface ProgressCounts {
  done: number;
  /** Unknown while the input is still streaming in (`score` reads a pipe). */
  total?: number;
  /** Completed but not successful (scored without a judge). */
  failed?: number;
  /** Infrastructure errors. */
  errors?: number;
}

/** Plain progress lines for a stderr that is not a terminal (CI logs). */
export interface ProgressLines {
  /** New counts: a line when 5% more are done, or at the end. */
  update(counts: ProgressCounts): void;
  /** Called every `everyMs` by the timer: a line when none was printed for that long. */
  tick(): void;
  /** Stops the timer (the last line was printed by the final update). */
  stop(): void;
}

/**
 * Progress as plain lines: one every 5% of the total, one at least every
 * `everyMs` (default 10 s) while work is under way, and one at the end, each
 * `LABEL: done/total done (P%), P passed, F failed, E error(s), R/s, ETA S s`.
 */
export function progressLines(
  io: Pick<Io, "err">,
  label: string,
  options: { everyMs?: number; now?: () => number; timer?: boolean } = {},
): ProgressLines {
  const everyMs = options.everyMs ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const started = now();
  let last = started;
  let lastStep = 0;
  let counts: ProgressCounts = { done: 0 };
  let finished = false;
  const print = () => {
    last = now();
    const seconds = Math.max(0.001, (last - started) / 1000);
    const parts = progressParts(counts, counts.done / seconds);
    io.err(`${label}: ${parts.join(", ")}`);
  };
  const interval = options.timer === false ? undefined : setInterval(() => lines.tick(), everyMs);
  // A timer must never keep a finished command alive.
  if (interval !== undefined) Deno.unrefTimer(interval);
  const lines: ProgressLines = {
    update(next) {
      counts = next;
      if (finished) return;
      const { done, total } = next;
      if (total !== undefined && done >= total) {
        finished = true;
        print();
        return;
      }
      const step = total ? Math.floor((20 * done) / total) : 0;
      if (step > lastStep) {
        lastStep = step;
        print();
      }
    },
    tick() {
      if (!finished && now() - last >= everyMs) print();
    },
    stop() {
      if (interval !== undefined) clearInterval(interval);
    },
  };
  return lines;
}
