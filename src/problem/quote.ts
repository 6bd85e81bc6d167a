/**
 * Text a user or a peer supplied, made safe to print and bounded: problems and records
 * quote at most {@link MAX_QUOTED_CHARS} characters of it (a megabyte name never makes
 * a megabyte error), and a terminal never receives its control bytes (ESC, BEL, ...),
 * which could move the cursor, retitle the window or hide what was printed.
 *
 * @module
 */

/** Characters of a supplied value an error message quotes. */
export const MAX_QUOTED_CHARS = 200;
/** Characters one problem's or record's error message keeps, whatever it quotes. */
export const MAX_MESSAGE_CHARS = 2000;

// C0 controls but tab and newline, DEL, and C1 controls (U+0080-U+009F: CSI is U+009B).
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// The same, newline and tab included (for text printed on one line).
// deno-lint-ignore no-control-regex
const CONTROL_ONE_LINE = /[\u0000-\u001f\u007f-\u009f]/g;

const escape = (c: string) => {
  const code = c.charCodeAt(0);
  if (code === 0x0a) return "\\n";
  if (code === 0x09) return "\\t";
  if (code === 0x0d) return "\\r";
  return `\\x${code.toString(16).padStart(2, "0")}`;
};

/**
 * `text` with its control characters written out (`\x1b`, `\x07`); tab and newline are
 * kept unless `oneLine`, which writes them out too.
 */
export function printable(text: string, oneLine = false): string {
  return text.replace(oneLine ? CONTROL_ONE_LINE : CONTROL, escape);
}

/** `text` cut to `max` characters, the cut said: `… (N more characters)`. */
export function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * A supplied value as an error message quotes it: in double quotes, control characters
 * written out, at most {@link MAX_QUOTED_CHARS} characters of it (`"abc…" (N characters)`).
 */
export function quoteInput(value: string, max = MAX_QUOTED_CHARS): string {
  if (value.length <= max) return `"${printable(value, true)}"`;
  return `"${printable(value.slice(0, max), true)}…" (${value.length} characters)`;
}
