/**
 * tau2's `calculate`: the reference checks the expression against the characters
 * `0123456789+-*\/(). ` and hands it to Python's `eval`, then prints
 * `str(round(float(value), 2))`. Within that alphabet Python reads integer and float
 * literals, `+ - * / // **`, unary signs and parentheses; this evaluator reads the
 * same language with the same number semantics (exact integers, true division,
 * IEEE floats) so `"10 / 4"` gives `"2.5"` and `"2 * 5"` gives `"10.0"`.
 *
 * @module
 */
import { pythonFloatText, pythonRound } from "./python_number.ts";

const ALLOWED = new Set("0123456789+-*/(). ");

export type CalculateOutcome =
  | { ok: true; result: string }
  | { ok: false; message: string };

/** Evaluates like the reference; failures carry the reference's message wording. */
export function calculate(expression: string): CalculateOutcome {
  for (const ch of expression) {
    if (!ALLOWED.has(ch)) return { ok: false, message: "Invalid characters in expression" };
  }
  try {
    const value = toFloat(new _Parser(_tokens(expression)).parse());
    return { ok: true, result: pythonFloatText(pythonRound(value, 2)) };
  } catch (e) {
    if (e instanceof PythonError) return { ok: false, message: `Invalid expression: ${e.message}` };
    throw e;
  }
}

/** A Python exception raised while evaluating; its text is what `str(e)` prints. */
class PythonError extends Error {}

const SYNTAX = "invalid syntax (<string>, line 1)";
const LEADING_ZEROS = "leading zeros in decimal integer literals are not permitted; " +
  "use an 0o prefix for octal integers (<string>, line 1)";
const UNCLOSED = "'(' was never closed (<string>, line 1)";
const UNMATCHED = "unmatched ')' (<string>, line 1)";

type Value = { int: bigint } | { float: number };
type Token = { kind: "num"; text: string } | { kind: "op"; text: string };

function _tokens(src: string): Token[] {
  const out: Token[] = [];
  // eval() drops leading blanks of a string source.
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === " ") {
      i++;
    } else if (/[0-9.]/.test(ch)) {
      const m = /^(?:\d+\.?\d*|\.\d+)/.exec(src.slice(i));
      if (!m) throw new PythonError(SYNTAX);
      const text = m[0];
      // A decimal integer literal may not have leading zeros ("012"), a float may.
      if (!text.includes(".") && /^0+[1-9]/.test(text)) throw new PythonError(LEADING_ZEROS);
      out.push({ kind: "num", text });
      i += text.length;
    } else if ((ch === "*" || ch === "/") && src[i + 1] === ch) {
      out.push({ kind: "op", text: ch + ch });
      i += 2;
    } else {
      out.push({ kind: "op", text: ch });
      i++;
    }
  }
  return out;
}

/**
 * Python's expression grammar over these tokens:
 * sum := term (('+'|'-') term)*; term := factor (('*'|'/'|'//') factor)*;
 * factor := ('+'|'-') factor | power; power := atom ['**' factor];
 * atom := number | '(' sum ')' | '(' ')'.
 */
class _Parser {
  #tokens: Token[];
  #pos = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): Value {
    if (this.#tokens.length === 0) throw new PythonError("invalid syntax (<string>, line 0)");
    const v = this.#sum();
    if (this.#pos !== this.#tokens.length) {
      throw new PythonError(this.#peek() === ")" ? UNMATCHED : SYNTAX);
    }
    return v;
  }

  #peek(): string | undefined {
    const t = this.#tokens[this.#pos];
    return t?.kind === "op" ? t.text : undefined;
  }

  #sum(): Value {
    let v = this.#term();
    for (let op = this.#peek(); op === "+" || op === "-"; op = this.#peek()) {
      this.#pos++;
      v = _arith(op, v, this.#term());
    }
    return v;
  }

  #term(): Value {
    let v = this.#factor();
    for (let op = this.#peek(); op === "*" || op === "/" || op === "//"; op = this.#peek()) {
      this.#pos++;
      v = _arith(op, v, this.#factor());
    }
    return v;
  }

  #factor(): Value {
    const op = this.#peek();
    if (op === "+" || op === "-") {
      this.#pos++;
      const v = this.#factor();
      if (op === "+") return v;
      return "int" in v ? { int: -v.int } : { float: -v.float };
    }
    return this.#power();
  }

  #power(): Value {
    const base = this.#atom();
    if (this.#peek() !== "**") return base;
    this.#pos++;
    return _power(base, this.#factor());
  }

  #atom(): Value {
    const t = this.#tokens[this.#pos++];
    if (!t) throw new PythonError(SYNTAX);
    if (t.kind === "num") {
      return t.text.includes(".") ? { float: Number(t.text) } : { int: BigInt(t.text) };
    }
    if (t.text !== "(") throw new PythonError(SYNTAX);
    if (this.#peek() === ")") {
      this.#pos++;
      throw new PythonError("float() argument must be a string or a real number, not 'tuple'");
    }
    const v = this.#sum();
    const close = this.#tokens[this.#pos++];
    if (close?.text !== ")") throw new PythonError(close ? SYNTAX : UNCLOSED);
    return v;
  }
}

const MAX_FLOAT_INT = BigInt(Number.MAX_VALUE);

function toFloat(v: Value): number {
  if ("float" in v) return v.float;
  const abs = v.int < 0n ? -v.int : v.int;
  // Beyond the largest double Python raises; Number() of a bigint rounds to nearest.
  if (abs > MAX_FLOAT_INT && Number(abs) === Infinity) {
    throw new PythonError("int too large to convert to float");
  }
  return Number(v.int);
}

function _arith(op: string, a: Value, b: Value): Value {
  if ("int" in a && "int" in b) {
    switch (op) {
      case "+":
        return { int: a.int + b.int };
      case "-":
        return { int: a.int - b.int };
      case "*":
        return { int: a.int * b.int };
      case "/":
        if (b.int === 0n) throw new PythonError("division by zero");
        return { float: _trueDivide(a.int, b.int) };
      default: {
        if (b.int === 0n) throw new PythonError("integer division or modulo by zero");
        const q = a.int / b.int;
        // bigint division truncates; Python floors.
        return { int: (a.int % b.int !== 0n) && ((a.int < 0n) !== (b.int < 0n)) ? q - 1n : q };
      }
    }
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (op) {
    case "+":
      return { float: x + y };
    case "-":
      return { float: x - y };
    case "*":
      return { float: x * y };
    case "/":
      if (y === 0) throw new PythonError("float division by zero");
      return { float: x / y };
    default:
      if (y === 0) throw new PythonError("float floor division by zero");
      return { float: _floorDivide(x, y) };
  }
}

/** int / int as Python does it: the correctly rounded quotient. */
function _trueDivide(a: bigint, b: bigint): number {
  const limit = 2n ** 53n;
  const abs = (n: bigint) => n < 0n ? -n : n;
  if (abs(a) <= limit && abs(b) <= limit) return Number(a) / Number(b);
  // Scale so the integer quotient carries more bits than a double keeps.
  const negative = (a < 0n) !== (b < 0n);
  const num = abs(a);
  const den = abs(b);
  const shift = BigInt(Math.max(0, 64 - (num.toString(2).length - den.toString(2).length)));
  const q = Number((num << shift) / den) / 2 ** Number(shift);
  if (!Number.isFinite(q)) throw new PythonError("integer division result too large for a float");
  return negative ? -q : q;
}

/** Python's float `//`: floor of the quotient computed through fmod, as CPython does. */
function _floorDivide(x: number, y: number): number {
  const mod = x % y;
  let div = (x - mod) / y;
  if (mod !== 0 && (y < 0) !== (mod < 0)) div -= 1;
  if (div === 0) return Math.sign(x / y) < 0 || Object.is(x / y, -0) ? -0 : 0;
  let floor = Math.floor(div);
  if (div - floor > 0.5) floor += 1;
  return floor;
}

function _power(base: Value, exp: Value): Value {
  if ("int" in base && "int" in exp && exp.int >= 0n) {
    const bits = base.int === 0n ? 0 : (base.int < 0n ? -base.int : base.int).toString(2).length;
    // Far past what a double can hold: Python would compute it, then fail to convert.
    if (bits > 1 && (bits - 1) * Number(exp.int) > 1e6) {
      throw new PythonError("int too large to convert to float");
    }
    return { int: base.int ** exp.int };
  }
  const x = toFloat(base);
  const y = toFloat(exp);
  if (x === 0 && y < 0) throw new PythonError("0.0 cannot be raised to a negative power");
  // A negative base with a fractional exponent gives a complex number in Python.
  if (x < 0 && !Number.isInteger(y) && Number.isFinite(y)) {
    throw new PythonError("float() argument must be a string or a real number, not 'complex'");
  }
  const r = Math.pow(x, y);
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) {
    throw new PythonError("(34, 'Numerical result out of range')");
  }
  return { float: r };
}
