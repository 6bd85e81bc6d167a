/**
 * When the caller takes its turn, as plain data: the human gap it leaves after the
 * agent's speech before it answers (seeded per answer from a mean and a spread), and
 * the end-of-turn silence it waits for instead once the agent has started again within
 * a gap (it was not done), written `gap=250ms±100,eot=600ms` (the defaults);
 * `src/participants/turn_taking.ts` keeps them, on the real clock and the simulated one
 * alike.
 *
 * @module
 */
import { z } from "zod";

const ms = z.number().min(0).max(60_000);

/** When the caller takes its turn (ms); see the module's description. */
export interface CallerTiming {
  /** The mean silence the caller leaves after the agent's speech before it answers. */
  gap_ms: number;
  /** Each answer's gap is drawn uniformly within the mean ± this (seeded). */
  gap_spread_ms: number;
  /** The end-of-turn silence the caller waits for once the agent started again within a gap. */
  eot_ms: number;
}

/** {@link CallerTiming} as data (the run's speech options, a Worker's participant options). */
export const CallerTimingSchema: z.ZodType<CallerTiming> = z.object({
  gap_ms: ms.describe(
    "The mean silence the caller leaves after the agent's speech before it answers (ms)",
  ),
  gap_spread_ms: ms.describe(
    "Each answer's gap is drawn uniformly within the mean ± this (ms, seeded)",
  ),
  eot_ms: ms.describe(
    "The end-of-turn silence the caller waits for once the agent started again within a gap (ms)",
  ),
}).strict().refine((t) => t.gap_spread_ms <= t.gap_ms, {
  message: "the gap's spread is larger than the gap",
  path: ["gap_spread_ms"],
});

/**
 * A person answers about 200-250 ms after the other stops (in every language measured),
 * and waits for a longer silence once the other has shown it was not done.
 */
export const DEFAULT_CALLER_TIMING: CallerTiming = { gap_ms: 250, gap_spread_ms: 100, eot_ms: 600 };

/** A problem reading a timing. */
export class CallerTimingSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CallerTimingSyntaxError";
  }
}

/** `250ms`, `250` or `0.25s`, in ms. */
function duration(name: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new CallerTimingSyntaxError(`${name}: expected a duration, e.g. 250ms`);
  const v = Number(m[1]) * (m[2] === "s" ? 1000 : 1);
  if (v > 60_000) throw new CallerTimingSyntaxError(`${name}: at most 60 s`);
  return v;
}

/**
 * Reads `gap=250ms±100,eot=600ms` (`+-` for `±`; a term left out keeps its default):
 * the gap's mean and spread, and the end-of-turn silence.
 */
export function parseCallerTiming(text: string): CallerTiming {
  const out: CallerTiming = { ...DEFAULT_CALLER_TIMING };
  const seen = new Set<string>();
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = part.indexOf("=");
    const name = eq < 0 ? part : part.slice(0, eq).trim();
    const value = eq < 0 ? "" : part.slice(eq + 1).trim();
    if (name !== "gap" && name !== "eot") {
      throw new CallerTimingSyntaxError(`unknown term "${name}" (gap or eot)`);
    }
    if (seen.has(name)) throw new CallerTimingSyntaxError(`${name}: given twice`);
    seen.add(name);
    if (value === "") throw new CallerTimingSyntaxError(`${name}: expected ${name}=DURATION`);
    if (name === "eot") {
      out.eot_ms = duration(name, value);
      continue;
    }
    const [mean, spread, extra] = value.split(/±|\+-/);
    if (extra !== undefined) throw new CallerTimingSyntaxError("gap: one ± at most");
    out.gap_ms = duration(name, mean!);
    out.gap_spread_ms = spread === undefined ? 0 : duration(`${name}'s spread`, spread);
  }
  const r = CallerTimingSchema.safeParse(out);
  if (!r.success) throw new CallerTimingSyntaxError(r.error.issues[0]!.message);
  return r.data;
}
