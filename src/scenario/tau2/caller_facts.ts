/**
 * What the deterministic scripted caller of a tau2 scenario says: an opening line
 * derived from the task's reason for calling (its first sentence, turned from "you"
 * to "I"), and the facts it can give when asked, picked out of the task's text
 * where they follow simple patterns (name, zip code, user id, email, phone number,
 * order and reservation ids, whether the caller is abroad).
 *
 * @module
 */
import { firstPerson } from "../caller_needs.ts";

export { firstPerson };

/** The facts a scripted caller gives when asked: label -> value. */
export type CallerFacts = Record<string, string>;

/**
 * Facts from the caller's `known_info` (identity) and `reason_for_call` (the ids the
 * caller mentions). Labels use the words an agent asks with ("zip code", "user id").
 */
export function callerFacts(knownInfo: string, reasonForCall: string): CallerFacts {
  const facts: CallerFacts = {};
  const known = _oneLine(knownInfo);
  const both = `${known} ${_oneLine(reasonForCall)}`;

  const name = /\b(?:You are|Your name is|My name is) ([A-Z][\w'-]*(?: [A-Z][\w'-]*)+)/.exec(known);
  if (name) {
    const words = name[1]!.split(" ");
    facts["name"] = name[1]!;
    facts["first name"] = words[0]!;
    facts["last name"] = words.at(-1)!;
  }
  const zip = /\bzip ?code\D{0,12}(\d{5})\b/i.exec(known) ?? /\b(\d{5})\b/.exec(known);
  if (zip) facts["zip code"] = zip[1]!;
  _add(
    facts,
    "user id",
    both.match(/\b[a-z]+(?:_[a-z]+)*_\d+\b/g)?.filter((id) => !PAYMENT_ID.test(id)),
  );
  _add(facts, "email", both.match(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g));
  _add(facts, "phone number", both.match(/\b\d{3}-\d{3}-\d{4}\b/g));
  _add(
    facts,
    "order id",
    both.match(/#?\bW\d{7}\b/g)?.map((id) => id.startsWith("#") ? id : `#${id}`),
  );
  const codes = _bookingCodes(both);
  _add(facts, "reservation id", codes.reservations);
  _add(facts, "flight number", codes.flights);
  const where = /\bcurrently ((?:abroad|at home) in [^.]+)/.exec(known);
  if (where) facts["location"] = where[1]!;
  return facts;
}

/** Payment method ids look like user ids (`gift_card_7245904`). */
const PAYMENT_ID = /^(?:credit_card|gift_card|paypal|certificate)_\d+$/;

/**
 * Six-character booking codes (`EHGLP3`): upper-case letters and digits, with a
 * digit or named as a reservation or confirmation just before. A code right after
 * the word "flight" is a flight number (`HAT039`).
 */
function _bookingCodes(text: string): { reservations: string[]; flights: string[] } {
  const reservations: string[] = [];
  const flights: string[] = [];
  for (const m of text.matchAll(/\b[A-Z0-9]{6}\b/g)) {
    const id = m[0];
    if (!/[A-Z]/.test(id)) continue;
    const before = text.slice(Math.max(0, m.index - 60), m.index).toLowerCase();
    if (/flight(?: number)?\s*$/.test(before)) flights.push(id);
    else if (/\d/.test(id) || /reservation|confirmation/.test(before)) reservations.push(id);
  }
  return { reservations, flights };
}

function _add(facts: CallerFacts, label: string, values: readonly string[] | null | undefined) {
  const unique = [...new Set(values ?? [])];
  if (unique.length > 0) facts[label] = unique.join(", ");
}

/** Longest opening line kept whole; a longer first sentence is cut at a comma. */
const MAX_OPENING = 200;

/**
 * The caller's first words: "Hi." and the first sentence of the reason for calling
 * in the first person ("You want to cancel reservation EHGLP3." -> "Hi. I want to
 * cancel reservation EHGLP3.").
 */
export function openingLine(reasonForCall: string): string {
  const sentences = _oneLine(reasonForCall).split(/(?<=[.!?])\s+/);
  let first = sentences.find((s) => /[a-z]{3}/i.test(s));
  if (!first) return "Hi, I need some help, please.";
  if (first.length > MAX_OPENING) {
    const cut = first.lastIndexOf(",", MAX_OPENING);
    first = (cut > 40 ? first.slice(0, cut) : first.slice(0, MAX_OPENING).replace(/\s+\S*$/, "")) +
      ".";
  }
  // A sentence break or a cut inside parentheses leaves one open: drop the aside.
  const open = first.lastIndexOf("(");
  if (open > 0 && first.indexOf(")", open) < 0) first = `${first.slice(0, open).trimEnd()}.`;
  return `Hi. ${firstPerson(first)}`;
}

function _oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
