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
