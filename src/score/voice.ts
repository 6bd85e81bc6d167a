/**
 * Voice readability, callbench's own deterministic signal. A voice agent must spell a
 * code one character at a time ("E, P, X, Y, E, K") and say only the spelled form; a
 * text-to-speech voice reading "EPXYEK" or "SK621" garbles it. And internal journey ids
 * (`FL_SK621_20260320`) are never read aloud at all.
 *
 * Each agent turn is flagged for:
 * - `identifier`: a code in canonical form, whether or not the turn also spells it
 *   (`spelled` says which: "next to its spelling" or "instead of it"). A code is a
 *   token of capitals and digits with at least one of each and four characters or more
 *   (`SK621`, `#W2378156`), or an identifier the trial's own tool calls carried that
 *   must be spelled (a confirmation number, a ticket or reservation id, a user id); an
 *   IATA airport code ("ORD", "MIA") is read whole and never flagged;
 * - `journey_id`: an `FL_...` id, in canonical form or spelled out.
 *
 * The signal is informational unless a scenario whitelists `voice_readability`.
 *
 * @module
 */
import type { VoiceFlag } from "./verdict.ts";

/** What the checker needs of a turn. */
export interface SpokenTurn {
  speaker: "agent" | "user";
  text: string;
}

const JOURNEY_ID = /^FL_[A-Za-z0-9_]+$/i;
const CONTEXT_CHARS = 30;
/** A cheap test for a spelled-out "F L underscore", before reading spelled runs. */
const SPELLED_FL = /(?:^|[^A-Za-z0-9])F[\s,.-]+L[\s,.-]+(?:underscore|_)/i;

/** The flags of every agent turn, in turn order. */
export function voiceFlags(
  turns: readonly SpokenTurn[],
  knownIdentifiers: ReadonlySet<string> = new Set(),
): VoiceFlag[] {
  const flags: VoiceFlag[] = [];
  turns.forEach((turn, index) => {
    if (turn.speaker === "agent" && turn.text.length > 0) {
      flags.push(...turnFlags(turn.text, index, knownIdentifiers));
    }
  });
  return flags;
}

/** The flags of one agent utterance. */
export function turnFlags(
  text: string,
  turn: number,
  knownIdentifiers: ReadonlySet<string> = new Set(),
): VoiceFlag[] {
  const flags: VoiceFlag[] = [];
  const seen = new Set<string>();
  let runs: string[] | undefined;
  for (const { token, at } of _candidates(text, knownIdentifiers)) {
    if (seen.has(token)) continue;
    seen.add(token);
    runs ??= spelledRuns(text);
    const bare = _alnum(token);
    flags.push({
      turn,
      kind: JOURNEY_ID.test(token) ? "journey_id" : "identifier",
      identifier: token,
      spelled: runs.some((r) => _alnum(r).includes(bare)),
      text: _context(text, at, token.length),
    });
  }
  if (runs === undefined && !SPELLED_FL.test(text)) return flags;
  runs ??= spelledRuns(text);
  for (const run of runs) {
    if (run.startsWith("FL_") && !seen.has(run)) {
      seen.add(run);
      flags.push({ turn, kind: "journey_id", identifier: run, spelled: true, text });
    }
  }
  return flags;
}

/**
 * Whole tokens (`#?[A-Za-z0-9_]+`) worth a flag whatever the trial: an `FL_` id, or a
 * code-shaped token (see `isCodeShaped`). One regular expression, so ordinary words
 * cost no JavaScript.
 */
const CANDIDATE =
  /(?<![A-Za-z0-9_#])(?:[Ff][Ll]_[A-Za-z0-9_]+|#?(?=[A-Z0-9_]*[0-9])(?=[A-Z0-9_]*[A-Z])[A-Z0-9_]{4,})(?![A-Za-z0-9_])/g;

/** Candidate tokens and the trial's known identifiers where they occur as whole tokens. */
function _candidates(text: string, known: ReadonlySet<string>): { token: string; at: number }[] {
  const found: { token: string; at: number }[] = [];
  for (const m of text.matchAll(CANDIDATE)) found.push({ token: m[0], at: m.index });
  for (const id of known) {
    for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
      if (_isWholeToken(text, at, id.length)) {
        found.push({ token: id, at });
        break;
      }
    }
  }
  return found.length > 1 ? found.sort((a, b) => a.at - b.at) : found;
}

function _isWholeToken(text: string, at: number, length: number): boolean {
  const before = at > 0 ? text[at - 1]! : " ";
  const after = at + length < text.length ? text[at + length]! : " ";
  return !/[A-Za-z0-9_#]/.test(before) && !/[A-Za-z0-9_]/.test(after);
}

/** A token of capitals and digits, with both, of four characters or more. */
export function isCodeShaped(token: string): boolean {
  const t = token.startsWith("#") ? token.slice(1) : token;
  return t.length >= 4 && /^[A-Z0-9_]+$/.test(t) && /[A-Z]/.test(t) && /[0-9]/.test(t);
}

const DIGIT_WORDS: Record<string, string> = {
  zero: "0",
  oh: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
};
const SYMBOL_WORDS: Record<string, string> = {
  underscore: "_",
  dash: "-",
  hyphen: "-",
  hash: "#",
  pound: "#",
  star: "*",
  at: "@",
  dot: ".",
};

/**
 * The character sequences a text spells out one unit at a time ("E, P, X" or
 * "S K six two one" or "F L underscore S K"), each with at least two letters or digits.
 */
export function spelledRuns(text: string): string[] {
  const runs: string[] = [];
  let run = "";
  let units = 0;
  const close = () => {
    if (units >= 2) runs.push(run.replace(/[-.@]+$/, ""));
    run = "";
    units = 0;
  };
  for (const word of text.split(/[\s,;:!?"()]+/)) {
    for (const piece of _pieces(word)) {
      const unit = _spelledUnit(piece);
      if (unit === undefined) {
        close();
      } else if (/^[A-Z0-9]$/.test(unit)) {
        run += unit;
        units++;
      } else if (units > 0) {
        run += unit;
      }
    }
  }
  close();
  return runs;
}

/** "E-P-X." is three pieces; "well." is one. */
function _pieces(word: string): string[] {
  const trimmed = word.replace(/^[.'`]+|[.'`]+$/g, "");
  if (trimmed === "") return [];
  return /^[A-Za-z0-9](?:[-.][A-Za-z0-9])+$/.test(trimmed) ? trimmed.split(/[-.]/) : [trimmed];
}

function _spelledUnit(piece: string): string | undefined {
  if (/^[A-Za-z0-9]$/.test(piece)) return piece.toUpperCase();
  const lower = piece.toLowerCase();
  return DIGIT_WORDS[lower] ?? SYMBOL_WORDS[lower];
}

function _alnum(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

function _context(text: string, at: number, length: number): string {
  const start = Math.max(0, at - CONTEXT_CHARS);
  const end = Math.min(text.length, at + length + CONTEXT_CHARS);
  return (start > 0 ? "..." : "") + text.slice(start, end) + (end < text.length ? "..." : "");
}

const ID_KEY = /(?:^|_)(?:id|ids|code|number|confirmation|locator|pnr)$/i;
/**
 * Keys of airport codes (`origin`, `airport_code`): a three-letter IATA code ("ORD",
 * "MIA") is read whole by a voice and never spelled, so it is no identifier to flag.
 */
const AIRPORT_KEY = /(?:^|_)(?:origin|destination|airport|iata)(?:_|$)/i;

/**
 * Identifiers the trial's tool calls carried: code-shaped strings anywhere, and strings
 * under identifier-like keys (`confirmation_number`, `origin`, `user_id`) that look like
 * codes (`EPXYEK`, `mia_li_3668`), so the checker knows them when spoken; airport codes
 * (`JFK`, under `origin`, `destination`, `airport_code`) are left out.
 */
export function knownIdentifiers(values: readonly unknown[]): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown, key: string, depth: number) => {
    if (depth > 8) return;
    if (typeof value === "string") {
      if (AIRPORT_KEY.test(key)) return;
      if (isCodeShaped(value) || (ID_KEY.test(key) && _isIdLike(value))) found.add(value);
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v, key, depth + 1);
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
    }
  };
  for (const v of values) visit(v, "", 0);
  return found;
}

function _isIdLike(value: string): boolean {
  if (value.length < 3 || value.length > 32) return false;
  // A confirmation number; three capitals alone are an airport code, read whole.
  if (/^[A-Z]{4,8}$/.test(value)) return true;
  return /^#?[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*$/.test(value) && /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value);
}
