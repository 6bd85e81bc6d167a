/**
 * `json.loads` as the reference calls it on a tool's JSON arguments: the value,
 * or the text of Python's `JSONDecodeError` (`Expecting value: line 1 column 1
 * (char 0)`) for the first fault a strict parse meets. With `intsAsFloats` (the
 * reference's `parse_int=float`) every number is a float; without, an integer
 * literal is kept as a {@link PyInt} so that it prints as Python's int.
 *
 * @module
 */
import { PyInt } from "./python_format.ts";

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

export function parsePythonJson(text: string, intsAsFloats: boolean): Parsed {
  try {
    const value = JSON.parse(text, (_key, v, context?: { source?: string }) => {
      if (typeof v !== "number" || intsAsFloats) return v;
      const source = context?.source ?? "";
      return /^-?\d+$/.test(source) ? new PyInt(v) : v;
    });
    return { ok: true, value };
  } catch {
    return { ok: false, error: decodeError(text) };
  }
}

/** Python's message for the first fault in `text` (which JSON.parse rejected). */
function decodeError(text: string): string {
  let i = 0;
  const at = (message: string, pos: number) => {
    const before = text.slice(0, pos);
    const line = before.split("\n").length;
    const column = pos - (before.lastIndexOf("\n") + 1) + 1;
    return `${message}: line ${line} column ${column} (char ${pos})`;
  };
  class Fault extends Error {}
  const fail = (message: string, pos: number): never => {
    throw new Fault(at(message, pos));
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const value = (): void => {
    const c = text[i];
    if (c === "{") return object();
    if (c === "[") return array();
    if (c === '"') return string();
    const rest = text.slice(i);
    for (const word of ["null", "true", "false", "NaN", "Infinity", "-Infinity"]) {
      if (rest.startsWith(word)) {
        i += word.length;
        return;
      }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(rest);
    if (m) {
      i += m[0].length;
      return;
    }
    fail("Expecting value", i);
  };
  const string = () => {
    const start = i++;
    for (;;) {
      if (i >= text.length) fail("Unterminated string starting at", start);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            fail("Invalid \\uXXXX escape", i + 1);
          }
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail("Invalid \\escape", i);
        i += 2;
        continue;
      }
      if (c < " ") fail("Invalid control character at", i);
      i++;
    }
  };
  const object = () => {
    i++;
    ws();
    if (text[i] === "}") {
      i++;
      return;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') {
        fail("Expecting property name enclosed in double quotes", i);
      }
      string();
      ws();
      if (text[i] !== ":") fail("Expecting ':' delimiter", i);
      i++;
      ws();
      value();
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      if (text[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
    }
  };
  const array = () => {
    i++;
    ws();
    if (text[i] === "]") {
      i++;
      return;
    }
    for (;;) {
      ws();
      value();
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      if (text[i] !== ",") fail("Expecting ',' delimiter", i);
      i++;
    }
  };
  try {
    ws();
    value();
    ws();
    if (i < text.length) fail("Extra data", i);
    return at("Expecting value", 0);
  } catch (e) {
    if (e instanceof Fault) return e.message;
    throw e;
  }
}
