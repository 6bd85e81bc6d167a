/**
 * A one-line progress bar on a terminal's stderr.
 *
 * @module
 */
import type { Io } from "./io.ts";
import type { TrialRecord } from "../runner/trial_record.ts";

export function progressBar(
  io: Pick<Io, "err" | "errPartial">,
): (done: number, total: number, record?: TrialRecord) => void {
  const started = performance.now();
  let errors = 0;
  return (done, total, record) => {
    if (record?.status === "error") errors++;
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const rate = done / Math.max(0.001, (performance.now() - started) / 1000);
    const line = `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} trials` +
      `  ${rate.toFixed(1)}/s${errors ? `  ${errors} error(s)` : ""}`;
    if (io.errPartial) io.errPartial(done === total ? line + "\n" : line);
    else if (done === total) io.err(line.slice(1));
  };
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
 * `LABEL: done/total (P%), F failed, E error(s), R/s, ETA S s`.
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
    const { done, total, failed, errors } = counts;
    const seconds = Math.max(0.001, (last - started) / 1000);
    const rate = done / seconds;
    const parts = [
      total === undefined
        ? `${done} done`
        : `${done}/${total} (${total === 0 ? 100 : Math.floor((100 * done) / total)}%)`,
      ...(failed ? [`${failed} failed`] : []),
      ...(errors ? [`${errors} error(s)`] : []),
      `${rate.toFixed(rate < 10 ? 2 : 1)}/s`,
      ...(total !== undefined && done < total && done > 0
        ? [`ETA ${Math.ceil((total - done) / rate)} s`]
        : []),
    ];
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
