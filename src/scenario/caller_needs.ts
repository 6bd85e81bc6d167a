/**
 * What a scenario's caller wants and insists on, for the deterministic scripted caller:
 * its goal, its must-have and nice-to-have criteria and what it does not know, each in
 * its own words (first person), and the limits among the must-haves a reply can be
 * checked against (an arrival or departure time, a most it will pay). The suites build
 * them from their data (eva's `user_goal`, tau2's user instructions); `limitsOf` reads
 * the limits out of the criteria's text.
 *
 * @module
 */
import { z } from "zod";

const Clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "expected a time HH:MM (24 h)");

/** The checkable limits among the must-haves. */
export const CallerLimitsSchema = z.object({
  arrive_by: Clock.optional().describe("arrive no later than this (local time)"),
  depart_after: Clock.optional().describe("leave after this (local time)"),
  depart_before: Clock.optional().describe("leave before this (local time)"),
  max_cost: z.number().nonnegative().optional().describe(
    "the most the caller pays in all (dollars)",
  ),
  max_cost_strict: z.boolean().optional().describe(
    "the total must be below max_cost (under $120), not at most it",
  ),
  max_stops: z.number().int().nonnegative().optional().describe(
    "the most stops (connections) the caller accepts: 0 for nonstop",
  ),
}).strict();
export type CallerLimits = z.infer<typeof CallerLimitsSchema>;

export const CallerNeedsSchema = z.object({
  goal: z.string().optional().describe("what the caller wants, in its own words"),
  must_have: z.array(z.string()).default([]).describe("what the caller insists on"),
  nice_to_have: z.array(z.string()).default([]).describe("what it would like"),
  unknown: z.array(z.string()).default([]).describe(
    'what it says it does not know ("I do not know my order id.")',
  ),
  limits: CallerLimitsSchema.default({}).describe("what an option must meet (the must-haves)"),
  preferred: CallerLimitsSchema.default({}).describe(
    "what the caller prefers among the options that meet its limits (the nice-to-haves)",
  ),
}).strict();
export type CallerNeeds = z.infer<typeof CallerNeedsSchema>;

/** A clock time as said (`4:00 PM`, `12 PM`, `noon`). */
export const SPOKEN_TIME = String
  .raw`(?:(\d{1,2})(?::(\d{2}))?\s*([AaPp])\.?\s*[Mm]\b\.?|(noon|midnight))`;

/** `HH:MM` (24 h) of a `SPOKEN_TIME` match's groups, from `first` on. */
export function clockOf(m: RegExpExecArray, first = 1): string | undefined {
  const word = m[first + 3];
  if (word) return word.toLowerCase() === "noon" ? "12:00" : "00:00";
  const h = Number(m[first]);
  const min = Number(m[first + 1] ?? "0");
  if (!(h >= 1 && h <= 12) || min > 59) return undefined;
  const pm = m[first + 2]!.toLowerCase() === "p";
  const hour = (h % 12) + (pm ? 12 : 0);
  return `${String(hour).padStart(2, "0")}:${String(min).padStart(2, "0")}`;
}

const MONEY = String.raw`\$\s?(\d[\d,]*(?:\.\d+)?)`;

/**
 * The limits a list of must-have criteria states in words the caller can check: "arrive
 * (no later than | by | before) 4:00 PM", "depart(s) after 12:00 PM", "leaves before
 * 2:00 PM", "between 8:00 AM and 3:00 PM", "$120 or less", "under $100", "less than or
 * equal to $100", "no connections" or "nonstop" (0 stops), "no more than 1 connection".
 * A criterion that says none of these adds no limit.
 */
export function limitsOf(criteria: readonly string[]): CallerLimits {
  const limits: CallerLimits = {};
  for (const c of criteria) {
    const text = c.replace(/\s+/g, " ");
    const arrive = new RegExp(
      String.raw`arriv\w*[^.;]*?\b(?:no later than|by|before)\s+${SPOKEN_TIME}`,
      "i",
    ).exec(text);
    if (arrive && !limits.arrive_by) limits.arrive_by = clockOf(arrive);
    const between = new RegExp(
      String.raw`(?:depart|leav)\w*[^.;]*?\bbetween\s+${SPOKEN_TIME}\s+and\s+${SPOKEN_TIME}`,
      "i",
    ).exec(text);
    if (between) {
      limits.depart_after ??= _minus(clockOf(between, 1));
      limits.depart_before ??= _plus(clockOf(between, 5));
    }
    const after = new RegExp(
      String.raw`(?:depart|leav)\w*[^.;]*?\bafter\s+${SPOKEN_TIME}`,
      "i",
    ).exec(text);
    if (after) limits.depart_after ??= clockOf(after);
    const before = new RegExp(
      String.raw`(?:depart|leav)\w*[^.;]*?\bbefore\s+${SPOKEN_TIME}`,
      "i",
    ).exec(text);
    if (before && !/arriv/i.test(before[0])) limits.depart_before ??= clockOf(before);
    const most =
      /\b(?:no more than|at most|up to|maximum of)\s+(\d|one|two)\s+(?:connections?|stops?)/i
        .exec(text);
    if (most) limits.max_stops ??= most[1] === "one" ? 1 : most[1] === "two" ? 2 : Number(most[1]);
    else if (
      /\bno connections?\b|\bnon-?stop\b|\bdirect (?:flight|from)\b|\(nonstop\/direct\)/i.test(text)
    ) {
      limits.max_stops ??= 0;
    }
    if (limits.max_cost === undefined && /\b(?:cost|fee|pay|charge|price|fare|total)/i.test(text)) {
      const inclusive = new RegExp(String.raw`${MONEY}\s+or\s+(?:less|under)`, "i").exec(text) ??
        new RegExp(
          String.raw`(?:less than or equal to|at most|no more than|up to|<=|≤)\s*${MONEY}`,
          "i",
        ).exec(text);
      const strict = new RegExp(String.raw`(?:under|less than|below|<)\s*${MONEY}`, "i").exec(text);
      const m = inclusive ?? strict;
      if (m) {
        limits.max_cost = Number(m[1]!.replaceAll(",", ""));
        if (!inclusive) limits.max_cost_strict = true;
      }
    }
  }
  return limits;
}

/** "Between 8:00 AM and 3:00 PM" includes its ends: leave after a minute before the first. */
function _minus(clock: string | undefined): string | undefined {
  return clock === undefined ? undefined : _clock(_minutes(clock) - 1);
}

function _plus(clock: string | undefined): string | undefined {
  return clock === undefined ? undefined : _clock(_minutes(clock) + 1);
}

function _minutes(clock: string): number {
  const [h, m] = clock.split(":").map(Number);
  return h! * 60 + m!;
}

function _clock(minutes: number): string {
  const m = Math.max(0, Math.min(23 * 60 + 59, minutes));
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/** Object positions where "you" becomes "me" rather than "I". */
const AFTER_PREPOSITION =
  /\b(to|for|with|at|from|about|of|by|than|like|on|in|into|tell|told|give|gave|ask|asked|help|let|lets) $/i;

/** Second person to first person, as a caller would say it of themselves. */
export function firstPerson(text: string): string {
  const swapped = text
    // The data's "You mobile data ..." means "your".
    .replace(/\b[Yy]ou (?=(?:mobile|phone|internet|data|line|account)\b)/g, "my ")
    .replace(/\b[Yy]ou are\b/g, "I am")
    .replace(/\b[Yy]ou were\b/g, "I was")
    .replace(/\b[Yy]ou're\b/g, "I'm")
    .replace(/\b[Yy]ou've\b/g, "I've")
    .replace(/\b[Yy]ou'd\b/g, "I'd")
    .replace(/\b[Yy]ou'll\b/g, "I'll")
    .replace(/\b[Yy]ourself\b/g, "myself")
    .replace(/\b[Yy]ours\b/g, "mine")
    .replace(/\b[Yy]our\b/g, "my")
    .replace(
      /\b[Yy]ou\b/g,
      (_word, offset: number, whole: string) =>
        AFTER_PREPOSITION.test(whole.slice(0, offset)) ? "me" : "I",
    );
  return swapped.charAt(0).toUpperCase() + swapped.slice(1);
}

/** The sentences of a text, each in the first person (empty ones left out). */
export function firstPersonSentences(text: string): string[] {
  return text.replace(/\s+/g, " ").trim().split(/(?<=[.!?])\s+/).filter((s) => /[a-z]{3}/i.test(s))
    .map(firstPerson);
}
