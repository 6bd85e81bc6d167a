/**
 * tau2's `calculate`: the reference checks the expression against the characters
 * `0123456789+-*\/(). ` and hands it to Python's `eval`, then prints
 * `str(round(float(value), 2))`. Within that alphabet Python reads integer and float
 * literals, `+ - * / // **`, unary signs and parentheses; this evaluator reads the
 * same language with the same number semantics (exact integers, true division,
 * IEEE floats) so `"10 / 4"` gives `"2.5"` and `"2 * 5"` gives `"10.0"`.
 *
 * As Python does, it parses the whole expression first (syntax errors win over
 * arithmetic ones), then checks its depth, then evaluates. Every input finishes in
 * well under a millisecond or two, because the work is bounded:
 *
 * - at most {@link CALCULATE_LIMITS}`.length` characters and `.operations` binary
 *   operators (Python has no such limit; refused as `Invalid expression: ...`);
 * - Python's own parser and compiler limits, with its wording: 200 nested
 *   parentheses, the parser stack (`MemoryError`, an empty message) and the
 *   compiler's recursion limit (CPython 3.11 from a shallow stack: depth 2990);
 *   integer literals of more than 4300 digits;
 * - integers of at most `.intBits` bits. Python computes bigger ones and fails when
 *   it converts the result to a float; this refuses them when they arise, with the
 *   same `int too large to convert to float`, so a power is never computed when its
 *   size alone exceeds the bound. (Only an expression dividing such a number back
 *   down, like `2**5000 // 2**4999`, reads differently from Python.)
 *
 * @module
 */
import { pythonFloatText, pythonRound } from "./python_number.ts";

const ALLOWED = new Set("0123456789+-*/(). ");

/** The bounds that keep every expression cheap (see the module documentation). */
export const CALCULATE_LIMITS = {
  /** Characters in an expression. */
  length: 10_000,
  /** Binary operators (`+ - * / // **`) in an expression. */
  operations: 1_000,
  /** Bits of any integer value, literal or intermediate (a double ends near 1024). */
  intBits: 2_048,
} as const;

export type CalculateOutcome =
  | { ok: true; result: string }
  | { ok: false; message: string };

/** Evaluates like the reference; failures carry the reference's message wording. */
export function calculate(expression: string): CalculateOutcome {
  for (const ch of expression) {
    if (!ALLOWED.has(ch)) return { ok: false, message: "Invalid characters in expression" };
  }
  try {
    if (expression.length > CALCULATE_LIMITS.length) {
      throw new PythonError(`expression longer than ${CALCULATE_LIMITS.length} characters`);
    }
    const parser = new _Parser(_tokens(expression));
    const tree = parser.parse();
    if (tree.depth > MAX_DEPTH) {
      throw new PythonError("maximum recursion depth exceeded during compilation");
    }
    if (parser.operations > CALCULATE_LIMITS.operations) {
      throw new PythonError(`more than ${CALCULATE_LIMITS.operations} operations`);
    }
    const value = toFloat(_evaluate(tree));
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
const TOO_LARGE = "int too large to convert to float";

// CPython 3.11's limits, measured: the tokenizer's 200 nested parentheses; the PEG
// parser's stack of 6000 frames, of which 24 are taken before the expression, a
// sign takes 1, `**` 2 and a parenthesis 28; the compiler's AST depth, 3 × the
// recursion limit less what the caller's stack already holds (2990 from a shallow one).
const MAX_PARENS = 200;
const PARSER_FRAMES = 5_976;
const FRAMES = { sign: 1, power: 2, paren: 28 } as const;
const MAX_DEPTH = 2_990;
// Python refuses longer decimal literals (`sys.get_int_max_str_digits()`).
const MAX_LITERAL_DIGITS = 4_300;

type Value = { int: bigint } | { float: number };
type Token = { kind: "num"; text: string } | { kind: "op"; text: string };
type Node =
  | { kind: "num"; value: Value; depth: 0 }
  | { kind: "tuple"; depth: 0 }
  | { kind: "neg"; x: Node; depth: number }
  | { kind: "pos"; x: Node; depth: number }
  | { kind: "bin"; op: string; a: Node; b: Node; depth: number };

const NUMBER = /\d+\.?\d*|\.\d+/y;

function _tokens(src: string): Token[] {
  const out: Token[] = [];
  let open = 0;
  // eval() drops leading blanks of a string source.
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === " ") {
      i++;
    } else if (ch === "." || (ch >= "0" && ch <= "9")) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(src);
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
      if (ch === "(" && ++open > MAX_PARENS) {
        throw new PythonError("too many nested parentheses (<string>, line 1)");
      }
      if (ch === ")") open = Math.max(0, open - 1);
      out.push({ kind: "op", text: ch });
      i++;
    }
  }
  return out;
}

function _literal(text: string): Node {
  if (text.includes(".")) return { kind: "num", value: { float: Number(text) }, depth: 0 };
  const digits = text.replace(/^0+(?=\d)/, "").length;
  if (digits > MAX_LITERAL_DIGITS) {
    throw new PythonError(
      `Exceeds the limit (${MAX_LITERAL_DIGITS} digits) for integer string conversion: ` +
        `value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit ` +
        "- Consider hexadecimal for huge integer literals to avoid decimal conversion limits. " +
        "(<string>, line 1)",
    );
  }
  return { kind: "num", value: { int: BigInt(text) }, depth: 0 };
}

function _binary(op: string, a: Node, b: Node): Node {
  return { kind: "bin", op, a, b, depth: 1 + Math.max(a.depth, b.depth) };
}

/** Wraps `x` in signs, the last one innermost. */
function _signed(signs: readonly string[], x: Node): Node {
  let node = x;
  for (let i = signs.length - 1; i >= 0; i--) {
    node = { kind: signs[i] === "-" ? "neg" : "pos", x: node, depth: node.depth + 1 };
  }
  return node;
}

/**
 * Python's expression grammar over these tokens, into a tree:
 * sum := term (('+'|'-') term)*; term := factor (('*'|'/'|'//') factor)*;
 * factor := ('+'|'-') factor | power; power := atom ['**' factor];
 * atom := number | '(' sum ')' | '(' ')'.
 * Signs and `**` chains are read in loops, so only parentheses recurse.
 */
class _Parser {
  #tokens: Token[];
  #pos = 0;
  #frames = 0;
  /** Binary operators read. */
  operations = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  parse(): Node {
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

  #enter(frames: number): void {
    this.#frames += frames;
    // Python's parser runs out of stack: a MemoryError whose text is empty.
    if (this.#frames >= PARSER_FRAMES) throw new PythonError("");
  }

  #sum(): Node {
    let v = this.#term();
    for (let op = this.#peek(); op === "+" || op === "-"; op = this.#peek()) {
      this.#pos++;
      this.operations++;
      v = _binary(op, v, this.#term());
    }
    return v;
  }

  #term(): Node {
    let v = this.#factor();
    for (let op = this.#peek(); op === "*" || op === "/" || op === "//"; op = this.#peek()) {
      this.#pos++;
      this.operations++;
      v = _binary(op, v, this.#factor());
    }
    return v;
  }

  /** Signs, then a power; the frames they hold are released when it is read. */
  #signs(): string[] {
    const signs: string[] = [];
    for (let op = this.#peek(); op === "+" || op === "-"; op = this.#peek()) {
      this.#pos++;
      this.#enter(FRAMES.sign);
      signs.push(op);
    }
    return signs;
  }

  #factor(): Node {
    const base = this.#frames;
    const signs = this.#signs();
    const v = _signed(signs, this.#power());
    this.#frames = base;
    return v;
  }

  #power(): Node {
    const base = this.#frames;
    // a ** s1 b ** s2 c is a ** (s1 (b ** (s2 c))): read left to right, build from the right.
    const atoms = [this.#atom()];
    const signs: string[][] = [[]];
    while (this.#peek() === "**") {
      this.#pos++;
      this.operations++;
      this.#enter(FRAMES.power);
      signs.push(this.#signs());
      atoms.push(this.#atom());
    }
    this.#frames = base;
    let v = atoms[atoms.length - 1]!;
    for (let i = atoms.length - 2; i >= 0; i--) {
      v = _binary("**", atoms[i]!, _signed(signs[i + 1]!, v));
    }
    return v;
  }

  #atom(): Node {
    const t = this.#tokens[this.#pos++];
    if (!t) throw new PythonError(SYNTAX);
    if (t.kind === "num") return _literal(t.text);
    if (t.text !== "(") throw new PythonError(SYNTAX);
    if (this.#peek() === ")") {
      this.#pos++;
      return { kind: "tuple", depth: 0 };
    }
    const base = this.#frames;
    this.#enter(FRAMES.paren);
    const v = this.#sum();
    this.#frames = base;
    const close = this.#tokens[this.#pos++];
    if (close?.text !== ")") throw new PythonError(close ? SYNTAX : UNCLOSED);
    return v;
  }
}

/** The value of a tree (its depth is bounded, so recursion is safe). */
function _evaluate(node: Node): Value {
  switch (node.kind) {
    case "num":
      return node.value;
    case "tuple":
      throw new PythonError("float() argument must be a string or a real number, not 'tuple'");
    case "pos":
      return _evaluate(node.x);
    case "neg": {
      const v = _evaluate(node.x);
      return "int" in v ? { int: -v.int } : { float: -v.float };
    }
    case "bin": {
      const a = _evaluate(node.a);
      const b = _evaluate(node.b);
      return node.op === "**" ? _power(a, b) : _arith(node.op, a, b);
    }
  }
}

const MAX_FLOAT_INT = BigInt(Number.MAX_VALUE);

function toFloat(v: Value): number {
  if ("float" in v) return v.float;
  const abs = v.int < 0n ? -v.int : v.int;
  // Beyond the largest double Python raises; Number() of a bigint rounds to nearest.
  if (abs > MAX_FLOAT_INT && Number(abs) === Infinity) throw new PythonError(TOO_LARGE);
  return Number(v.int);
}

/** Bits of |n| (0 for 0). */
function _bits(n: bigint): number {
  const abs = n < 0n ? -n : n;
  if (abs <= 0xffff_ffffn) return 32 - Math.clz32(Number(abs));
  const hex = abs.toString(16);
  return (hex.length - 1) * 4 + 32 - Math.clz32(parseInt(hex[0]!, 16));
}

/** An integer result, refused when it exceeds the size bound. */
function _int(n: bigint): Value {
  if (_bits(n) > CALCULATE_LIMITS.intBits) throw new PythonError(TOO_LARGE);
  return { int: n };
}

function _arith(op: string, a: Value, b: Value): Value {
  if ("int" in a && "int" in b) {
    switch (op) {
      case "+":
        return _int(a.int + b.int);
      case "-":
        return _int(a.int - b.int);
      case "*":
        // The product has at least this many bits less one: refuse before computing.
        if (
          a.int !== 0n && b.int !== 0n && _bits(a.int) + _bits(b.int) - 1 > CALCULATE_LIMITS.intBits
        ) {
          throw new PythonError(TOO_LARGE);
        }
        return _int(a.int * b.int);
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
  const shift = BigInt(Math.max(0, 64 - (_bits(num) - _bits(den))));
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
    const b = base.int;
    // 0, 1 and -1 stay small whatever the exponent.
    if (b === 0n) return { int: exp.int === 0n ? 1n : 0n };
    if (b === 1n) return { int: 1n };
    if (b === -1n) return { int: exp.int % 2n === 0n ? 1n : -1n };
    // |b| ** e has at least (bits - 1) * e + 1 bits: refuse before computing.
    if ((_bits(b) - 1) * Number(exp.int) >= CALCULATE_LIMITS.intBits) {
      throw new PythonError(TOO_LARGE);
    }
    return _int(b ** exp.int);
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
