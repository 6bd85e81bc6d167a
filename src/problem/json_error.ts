/**
 * Where a JSON text goes wrong. `JSON.parse` does not always say, so on failure a
 * small scanner walks the text to the first offending character.
 *
 * @module
 */

export interface JsonErrorLocation {
  line: number;
  column: number;
  message: string;
}

/** Parses `text`, or returns where and why it is not JSON. */
export function parseJsonLocated(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: JsonErrorLocation } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return {
      ok: false,
      error: locateJsonError(text) ?? { line: 1, column: 1, message: (e as Error).message },
    };
  }
}

/** The first syntax error of `text` as line and column, or undefined when it is valid JSON. */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const e = jsonErrorOffset(text);
  if (!e) return undefined;
  const before = text.slice(0, e.offset);
  const line = before.split("\n").length;
  return { line, column: e.offset - before.lastIndexOf("\n"), message: e.message };
}

/** The offset and reason of the first syntax error of `text`, or undefined when valid. */
export function jsonErrorOffset(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { at: i });
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${describe(text[i])}`);
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === "\\") {
        const n = text[i + 1];
        if (n === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("bad \\u escape");
          i += 6;
        } else if (n !== undefined && '"\\/bfnrt'.includes(n)) i += 2;
        else fail("bad escape");
      } else if (c < " ") fail("control character in string");
      else i++;
    }
    fail("unterminated string");
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "" || m[0] === "-") fail(`unexpected ${describe(text[i])}`);
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      while (true) {
        ws();
        if (text[i] !== '"') fail(`expected a property name, found ${describe(text[i])}`);
        string();
        ws();
        if (text[i] !== ":") fail(`expected ":", found ${describe(text[i])}`);
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail(`expected "," or "}", found ${describe(text[i])}`);
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      while (true) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail(`expected "," or "]", found ${describe(text[i])}`);
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    return number();
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected ${describe(text[i])} after the value`);
    return undefined;
  } catch (e) {
    return { offset: (e as { at?: number }).at ?? 0, message: (e as Error).message };
  }
}

function describe(c: string | undefined): string {
  return c === undefined ? "end of input" : JSON.stringify(c);
}
