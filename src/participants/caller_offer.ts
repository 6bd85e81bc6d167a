/**
 * How the scripted caller reads an agent's offer: the options it names (a flight or an
 * option with its departure and arrival times and its total cost, as said in digits:
 * "leaves at 8:15 AM and arrives at 9:25 AM ... a total of $115"), each checked against
 * the caller's limits; and its choice among those that meet them: the cheapest, then
 * the earliest to arrive, then the earliest to leave, then the first named.
 *
 * @module
 */
import { type CallerLimits, clockOf, SPOKEN_TIME } from "../scenario/caller_needs.ts";

/** One option of an offer, as far as its words say. */
export interface OfferedOption {
  /** A flight number (`SK703`) or `option 2`, when said. */
  name?: string;
  /** HH:MM (24 h). */
  departs?: string;
  arrives?: string;
  /** Dollars, the total when said ("a total of $115"), else the largest amount. */
  cost?: number;
  /** Stops, when said ("nonstop", "1 stop", "connecting"). */
  stops?: number;
  /** The option's words. */
  text: string;
}

/** An option against the limits: what it breaks, and what the caller cannot yet tell. */
export interface OptionCheck {
  option: OfferedOption;
  /** Each limit broken, said the caller's way ("it arrives at 5:10 PM, and I need ..."). */
  breaks: string[];
  /** A cost limit the option said no cost for. */
  costUnknown: boolean;
}

/** Words that ask the caller to choose or to agree. */
const ASKS =
  /\?|would you like|shall i|should i|do you want|want me to|works? for you|which (?:one|option|flight)|(?:do|would) you prefer|okay with|go ahead|proceed/i;

/** The options an utterance offers, or none when it asks no choice or names nothing to check. */
export function offeredOptions(text: string): OfferedOption[] {
  if (!ASKS.test(text)) return [];
  const sentences = text.replace(/\s+/g, " ").trim().split(/(?<=[.!?;:])\s+/);
  const options: OfferedOption[] = [];
  let current: OfferedOption | undefined;
  const totals = new WeakMap<OfferedOption, number>();
  for (const sentence of sentences) {
    const times = _times(sentence);
    const name = /\b(?:flight\s+)?([A-Z]{2}\s?\d{2,4})\b/.exec(sentence)?.[1]?.replace(" ", "") ??
      /\b(option\s+(?:\d+|one|two|three|four))\b/i.exec(sentence)?.[1]?.toLowerCase();
    const fresh = current === undefined ||
      (name !== undefined && current.name !== undefined && name !== current.name) ||
      (times.departs !== undefined && current.departs !== undefined) ||
      (times.arrives !== undefined && current.arrives !== undefined && times.departs === undefined);
    if ((times.departs || times.arrives || name) && fresh) {
      current = { text: "" };
      options.push(current);
    }
    if (!current) {
      // Words before any option (a cost said first) belong to the first one named.
      current = { text: "" };
      options.push(current);
    }
    current.text += (current.text ? " " : "") + sentence;
    current.stops ??= _stops(sentence);
    if (name && !current.name) current.name = name;
    if (times.departs && !current.departs) current.departs = times.departs;
    if (times.arrives && !current.arrives) current.arrives = times.arrives;
    for (const m of sentence.matchAll(/\$\s?(\d[\d,]*(?:\.\d+)?)/g)) {
      const amount = Number(m[1]!.replaceAll(",", ""));
      const before = sentence.slice(Math.max(0, m.index - 30), m.index);
      const after = sentence.slice(m.index + m[0].length, m.index + m[0].length + 12);
      if (
        /total|all[- ]in|altogether|in all/i.test(before) ||
        /^\s*(?:total|in all|all[- ]in)/i.test(after)
      ) {
        totals.set(current, amount);
      }
      current.cost = Math.max(current.cost ?? 0, amount);
    }
  }
  for (const o of options) {
    const total = totals.get(o);
    if (total !== undefined) o.cost = total;
  }
  return options.filter((o) =>
    o.departs !== undefined || o.arrives !== undefined || o.cost !== undefined
  );
}

/** Checks an option against the caller's limits. */
export function checkOption(option: OfferedOption, limits: CallerLimits): OptionCheck {
  const breaks: string[] = [];
  if (limits.arrive_by && option.arrives && option.arrives > limits.arrive_by) {
    breaks.push(
      `it arrives at ${spokenClock(option.arrives)}, and I need to arrive by ${
        spokenClock(limits.arrive_by)
      }`,
    );
  }
  if (limits.depart_after && option.departs && option.departs <= limits.depart_after) {
    breaks.push(
      `it leaves at ${spokenClock(option.departs)}, and I need to leave after ${
        spokenClock(limits.depart_after)
      }`,
    );
  }
  if (limits.depart_before && option.departs && option.departs >= limits.depart_before) {
    breaks.push(
      `it leaves at ${spokenClock(option.departs)}, and I need to leave before ${
        spokenClock(limits.depart_before)
      }`,
    );
  }
  const max = limits.max_cost;
  if (max !== undefined && option.cost !== undefined) {
    const over = limits.max_cost_strict ? option.cost >= max : option.cost > max;
    if (over) {
      breaks.push(
        `the total is $${option.cost}, and I can pay ${
          limits.max_cost_strict ? "less than" : "at most"
        } $${max}`,
      );
    }
  }
  if (limits.max_stops !== undefined && option.stops !== undefined) {
    if (option.stops > limits.max_stops) {
      breaks.push(
        `it has ${option.stops} stop${option.stops === 1 ? "" : "s"}, and I need ${
          limits.max_stops === 0 ? "a nonstop flight" : `at most ${limits.max_stops}`
        }`,
      );
    }
  }
  return { option, breaks, costUnknown: max !== undefined && option.cost === undefined };
}

/**
 * The option the caller takes among those that break nothing (those that also meet its
 * preferences first), or undefined.
 */
export function chooseOption(
  checks: readonly OptionCheck[],
  preferred: CallerLimits = {},
): OptionCheck | undefined {
  const meets = checks.filter((c) => c.breaks.length === 0);
  const liked = meets.filter((c) => checkOption(c.option, preferred).breaks.length === 0);
  const fine = liked.length > 0 ? liked : meets;
  const key = (c: OptionCheck) =>
    [
      c.option.cost ?? Infinity,
      c.option.arrives ?? "99:99",
      c.option.departs ?? "99:99",
    ] as const;
  return fine.reduce<OptionCheck | undefined>((best, c) => {
    if (!best) return c;
    const [a, b] = [key(c), key(best)];
    return a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))
      ? c
      : best;
  }, undefined);
}

/** How the caller names an option it takes: its name, else when it leaves or arrives. */
export function optionName(o: OfferedOption): string {
  if (o.name) return /^option/.test(o.name) ? o.name : `flight ${o.name}`;
  if (o.departs) return `the one that leaves at ${spokenClock(o.departs)}`;
  if (o.arrives) return `the one that arrives at ${spokenClock(o.arrives)}`;
  return "that one";
}

/** `16:00` as `4:00 PM`. */
export function spokenClock(clock: string): string {
  const [h, m] = clock.split(":").map(Number);
  const suffix = h! >= 12 ? "PM" : "AM";
  return `${((h! + 11) % 12) + 1}:${String(m).padStart(2, "0")} ${suffix}`;
}

/** The stops a sentence says an option has: nonstop 0, "1 stop" 1, "connecting" at least 1. */
function _stops(sentence: string): number | undefined {
  if (/\bnon-?stop\b|\bdirect\b/i.test(sentence)) return 0;
  const n = /\b(\d|one|two|three)\s+(?:stops?|connections?)\b/i.exec(sentence);
  if (n) {
    return ({ one: 1, two: 2, three: 3 } as Record<string, number>)[n[1]!.toLowerCase()] ??
      Number(n[1]);
  }
  if (/\bconnect(?:ing|ion|s)\b/i.test(sentence)) return 1;
  return undefined;
}

/** A sentence's departure and arrival times: each time goes with the nearest verb before it. */
function _times(sentence: string): { departs?: string; arrives?: string } {
  const out: { departs?: string; arrives?: string } = {};
  for (const m of sentence.matchAll(new RegExp(SPOKEN_TIME, "g"))) {
    const clock = clockOf(m as RegExpExecArray);
    if (!clock) continue;
    const before = sentence.slice(Math.max(0, m.index - 60), m.index).toLowerCase();
    const arrive = Math.max(before.lastIndexOf("arriv"), before.lastIndexOf("land"));
    const depart = Math.max(
      before.lastIndexOf("depart"),
      before.lastIndexOf("leav"),
      before.lastIndexOf("takes off"),
    );
    if (arrive < 0 && depart < 0) continue;
    if (arrive > depart) out.arrives ??= clock;
    else out.departs ??= clock;
  }
  return out;
}
