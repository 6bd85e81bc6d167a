/**
 * The caller's full-duplex behaviours, as plain data: for each, a chance per
 * opportunity (`backchannel=0.3,filler=0.2`). `eval --caller-behaviour` and a
 * scenario's `user.behaviour` give them; `src/participants/caller_behaviour.ts` acts
 * them out; each one acted out is a caller event in the record (`audio.caller_events`).
 *
 * @module
 */
import { z } from "zod";
import { quoteInput } from "../problem/quote.ts";

/** A behaviour, and the kind of caller event it leaves. */
export type BehaviourKind = "backchannel" | "filler" | "pause" | "side" | "interrupt" | "late";
/** The behaviours, and the kinds of the caller events they leave. */
export const BEHAVIOURS: readonly [BehaviourKind, ...BehaviourKind[]] = [
  "backchannel",
  "filler",
  "pause",
  "side",
  "interrupt",
  "late",
];

const chance = z.number().min(0).max(1);

/** A chance per opportunity for each behaviour (absent: never). */
export const CallerBehaviourSchema: z.ZodType<CallerBehaviour> = z.object({
  backchannel: chance.optional().describe(
    'Per agent utterance of 1.5 s or more: the caller says "mm-hmm", "okay" or "right", 6 dB lower, 30–70% into it ' +
      "(a remote agent's speech: 0.8–3 s into it, while it goes on)",
  ),
  filler: chance.optional().describe(
    'Per caller utterance: "um" or "uh" said inside it, with no gap',
  ),
  pause: chance.optional().describe(
    "Per caller utterance of three words or more: it is split near its middle by a pause of 0.5–2 s",
  ),
  side: chance.optional().describe(
    'Per caller utterance: first, 10 dB lower, speech to someone else in the room ("Hold on, honey, I\'m on the phone.")',
  ),
  interrupt: chance.optional().describe(
    "Per agent utterance: the caller cuts in (the scripted caller's barge-in)",
  ),
  late: chance.optional().describe("Per caller answer: the caller waits 2–4 s before answering"),
}).strict();
/** A chance (0 to 1) per opportunity for each behaviour; an absent one never happens. */
export type CallerBehaviour = Partial<Record<BehaviourKind, number>>;

/** A problem reading a behaviour list. */
export class BehaviourSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BehaviourSyntaxError";
  }
}

/** A chance as written: a decimal from 0 to 1, or a percentage (`0.3`, `.3`, `30%`). */
const CHANCE_TEXT = /^(?:\d+(?:\.\d*)?|\.\d+)%?$/;

/**
 * Reads `backchannel=0.3,filler=0.2` (chances from 0 to 1, or percentages). Strict:
 * each part is one known name, one `=` and one chance, nothing more.
 */
export function parseBehaviour(text: string): CallerBehaviour {
  const out: Record<string, number> = {};
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = part.indexOf("=");
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? undefined : part.slice(eq + 1).trim();
    if (!(BEHAVIOURS as readonly string[]).includes(name)) {
      throw new BehaviourSyntaxError(
        `unknown behaviour ${quoteInput(name)} (one of ${BEHAVIOURS.join(", ")})`,
      );
    }
    const pct = value?.endsWith("%") ?? false;
    const p = value !== undefined && CHANCE_TEXT.test(value)
      ? Number(pct ? value.slice(0, -1) : value) / (pct ? 100 : 1)
      : NaN;
    if (!(p >= 0 && p <= 1)) {
      throw new BehaviourSyntaxError(
        `${name}: expected a chance from 0 to 1, e.g. ${name}=0.2${
          value === undefined ? "" : `, not ${quoteInput(value)}`
        }`,
      );
    }
    if (name in out) throw new BehaviourSyntaxError(`${name}: given twice`);
    out[name] = p;
  }
  return out as CallerBehaviour;
}

/** Whether any behaviour can happen. */
export function hasBehaviour(b: CallerBehaviour | undefined): b is CallerBehaviour {
  return b !== undefined && Object.values(b).some((p) => p !== undefined && p > 0);
}

/** The behaviours in a fixed order, zero chances left out (for the configuration hash). */
export function behaviourConfig(b: CallerBehaviour): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of BEHAVIOURS) if (b[k]) out[k] = b[k];
  return out;
}
