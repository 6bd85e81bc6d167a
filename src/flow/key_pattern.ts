/**
 * DTMF route patterns (flows.md "DTMF routing"): a `match` is a regular expression
 * over the keys `0-9 * # A-D`, anchored at both ends. A pattern that is one atom
 * routes each key as it arrives; any other pattern makes its node collect keys
 * until `#`.
 *
 * @module
 */
import { DTMF_KEY_CHARS, DTMF_KEYS_TEXT } from "../dtmf/keys.ts";

/** Keys that stand for themselves in a regular expression (`*` must be escaped). */
const LITERAL_KEYS = DTMF_KEY_CHARS.replace("*", "");
/** Keys that may bound a range in a class (`[0-9]`, `[A-D]`). */
const RANGE_KEYS = DTMF_KEY_CHARS.replace(/[*#]/g, "");
const KEY_RANGE = new RegExp(`[${RANGE_KEYS}]-[${RANGE_KEYS}]`, "g");
/** The escapes that name keys: `\d` and the escaped keys that are metacharacters. */
const KEY_ESCAPE = /^\\[d*#]$/;
const KEY_ESCAPES = /\\[d*#]/g;
/** Regular-expression syntax a key pattern may use outside classes, braces and groups. */
const PATTERN_SYNTAX = ".)|*+?^$";

/** Whether `pattern` is one atom: a key, an escaped key, `\d`, `.`, or one class. */
export function isSingleKeyPattern(pattern: string): boolean {
  if (pattern.length === 1 && (LITERAL_KEYS.includes(pattern) || pattern === ".")) return true;
  if (KEY_ESCAPE.test(pattern)) return true;
  if (pattern.startsWith("[") && pattern.endsWith("]")) {
    return _classEnd(pattern, 0) === pattern.length - 1;
  }
  return false;
}

/** The pattern as a whole-string matcher. Throws on an invalid expression. */
export function compileKeyPattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})$`);
}

/**
 * Why `pattern` cannot route keys, or `undefined` when it can: empty, not a valid
 * regular expression, or naming something other than keys (`\w`, letters, `\s`).
 */
export function keyPatternProblem(pattern: string): string | undefined {
  if (pattern === "") return "is empty";
  try {
    compileKeyPattern(pattern);
  } catch (e) {
    const hint = /^\*|[^\\]\*\*/.test(pattern) ? ` (write the * key as "\\*")` : "";
    return `is not a valid regular expression: ${(e as Error).message}${hint}`;
  }
  const bad = _nonKeyPart(pattern);
  return bad === undefined
    ? undefined
    : `matches ${JSON.stringify(bad)}, which is not a key (keys are ${DTMF_KEYS_TEXT})`;
}

/** The first piece of `p` that is not about keys, if any. */
function _nonKeyPart(p: string): string | undefined {
  let i = 0;
  while (i < p.length) {
    const c = p[i]!;
    if (c === "\\") {
      // Only `\d` and the escaped keys `\*`, `\#` name keys (`\w`, `\.` ... never do).
      const e = p.slice(i, i + 2);
      if (!KEY_ESCAPE.test(e)) return e;
      i += 2;
    } else if (c === "[") {
      const end = _classEnd(p, i);
      const body = p.slice(i + 1, end).replace(/^\^/, "");
      const stripped = body.replace(KEY_ESCAPES, "").replace(KEY_RANGE, "");
      const bad = [...stripped].filter((ch) => !DTMF_KEY_CHARS.includes(ch)).join("");
      if (bad !== "") return bad[0] === "\\" ? bad.slice(0, 2) : bad[0];
      i = end + 1;
    } else if (c === "{") {
      const m = /^\{\d+(,\d*)?\}/.exec(p.slice(i));
      if (!m) return c;
      i += m[0].length;
    } else if (c === "(") {
      if (p[i + 1] === "?") {
        if (p[i + 2] !== ":") return p.slice(i, i + 3);
        i += 3;
      } else i += 1;
    } else if (DTMF_KEY_CHARS.includes(c) || PATTERN_SYNTAX.includes(c)) {
      i += 1;
    } else {
      return c;
    }
  }
  return undefined;
}

/** Index of the `]` closing the class that opens at `start`. */
function _classEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === "^") i++;
  if (p[i] === "]") i++; // a leading `]` is literal
  while (i < p.length && p[i] !== "]") i += p[i] === "\\" ? 2 : 1;
  return i;
}
