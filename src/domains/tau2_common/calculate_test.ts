import { deepEqual } from "node:assert/strict";
import { calculate } from "./calculate.ts";

// Expected texts are what Python prints for str(round(float(eval(e)), 2)).
const CASES: [string, string][] = [
  ["2 + 2", "4.0"],
  ["10 / 4", "2.5"],
  ["2 * 5", "10.0"],
  ["(1 + 2) * 3.5", "10.5"],
  ["0.1 + 0.2", "0.3"],
  ["1 / 3", "0.33"],
  ["100 - 33.333", "66.67"],
  ["7 // 2", "3.0"],
  ["-7 // 2", "-4.0"],
  ["-7.5 // 2", "-4.0"],
  ["2 ** 10", "1024.0"],
  ["2 ** -1", "0.5"],
  ["-2 ** 2", "-4.0"],
  ["3 ** 2 ** 2", "81.0"],
  ["6 / 2 / 3", "1.0"],
  ["  5 + 5", "10.0"],
  ["--5", "5.0"],
  ["1.", "1.0"],
  [".5", "0.5"],
  ["00", "0.0"],
  ["2.675", "2.67"],
  ["0.125 * 1", "0.12"],
  ["-0.001", "-0.0"],
  ["10 ** 16", "1e+16"],
  ["999999999999999999 * 10", "1e+19"],
  ["10 ** 400 / 10 ** 399", "10.0"],
  ["543.3 + 20.93 + 121.1", "685.33"],
];

Deno.test("calculate() evaluates like Python eval and prints str(round(x, 2))", () => {
  for (const [expression, expected] of CASES) {
    deepEqual(calculate(expression), { ok: true, result: expected }, expression);
  }
});

Deno.test("calculate() refuses characters outside digits, operators, parentheses and spaces", () => {
  for (const e of ["1e5", "2 % 3", "abs(-1)", "1_000", "2,5"]) {
    deepEqual(calculate(e), { ok: false, message: "Invalid characters in expression" }, e);
  }
});

Deno.test("calculate() reports Python's errors as invalid expressions", () => {
  const cases: [string, string][] = [
    ["1 / 0", "division by zero"],
    ["1.0 / 0", "float division by zero"],
    ["1 // 0", "integer division or modulo by zero"],
    ["()", "float() argument must be a string or a real number, not 'tuple'"],
    ["(-8) ** 0.5", "float() argument must be a string or a real number, not 'complex'"],
    ["10.0 ** 400", "(34, 'Numerical result out of range')"],
    ["1 2", "invalid syntax (<string>, line 1)"],
    ["1..2", "invalid syntax (<string>, line 1)"],
    ["5 +", "invalid syntax (<string>, line 1)"],
    ["(2", "'(' was never closed (<string>, line 1)"],
    ["2)", "unmatched ')' (<string>, line 1)"],
    ["", "invalid syntax (<string>, line 0)"],
  ];
  for (const [e, message] of cases) {
    deepEqual(calculate(e), { ok: false, message: `Invalid expression: ${message}` }, e);
  }
  const zeros = calculate("012");
  deepEqual(zeros.ok, false);
  deepEqual(!zeros.ok && zeros.message.includes("leading zeros"), true);
});

const invalid = (message: string) => ({ ok: false, message: `Invalid expression: ${message}` });
const TOO_LARGE = invalid("int too large to convert to float");

Deno.test("calculate() refuses integer bombs before computing them", () => {
  const bombs = [
    "2**999999".repeat(100),
    Array(100).fill("2**999999").join("*"),
    Array(100).fill("2**999999").join("+"),
    "9**9**9",
    "2**(10**100)",
    "(2**1000)*(2**1100)",
  ];
  const start = performance.now();
  for (const e of bombs) deepEqual(calculate(e), TOO_LARGE, e.slice(0, 40));
  // Each takes well under a millisecond; the unbounded evaluator took over a minute.
  const ms = performance.now() - start;
  deepEqual(ms < 1000, true, `${ms} ms`);
});

Deno.test("calculate() keeps exact integers up to the bound, and 0, 1, -1 to any power", () => {
  deepEqual(calculate("2**2047 // 2**2046"), { ok: true, result: "2.0" });
  deepEqual(calculate("2**2048 // 2**2047"), TOO_LARGE);
  deepEqual(calculate("(-1)**(10**100) + 0**(10**100) + 1**(10**100)"), {
    ok: true,
    result: "2.0",
  });
  deepEqual(calculate("2**-(10**400)"), TOO_LARGE);
});

// Thresholds and texts as CPython 3.11 gives them for eval() from a shallow stack.
Deno.test("calculate() refuses what Python's parser and compiler refuse, in Python's words", () => {
  const nested = (n: number) => "(".repeat(n) + "1" + ")".repeat(n);
  deepEqual(calculate(nested(200)), { ok: true, result: "1.0" });
  deepEqual(calculate(nested(201)), invalid("too many nested parentheses (<string>, line 1)"));
  const recursion = invalid("maximum recursion depth exceeded during compilation");
  deepEqual(calculate("-".repeat(2990) + "1"), { ok: true, result: "1.0" });
  deepEqual(calculate("-".repeat(2991) + "1"), recursion);
  deepEqual(calculate("1**-".repeat(1991) + "1"), recursion);
  // The parser's stack overflows: a MemoryError, whose text is empty.
  deepEqual(calculate("-".repeat(5976) + "1"), invalid(""));
  deepEqual(calculate("1**-".repeat(1992) + "1"), invalid(""));
  deepEqual(calculate("9".repeat(4300)), TOO_LARGE);
  const digits = calculate("9".repeat(4301));
  deepEqual(
    !digits.ok && digits.message.startsWith("Invalid expression: Exceeds the limit (4300 digits)"),
    true,
  );
  // The whole expression is parsed before anything is evaluated.
  deepEqual(calculate("1 / 0 +"), invalid("invalid syntax (<string>, line 1)"));
});

Deno.test("calculate() bounds length and operation count", () => {
  deepEqual(calculate(Array(1001).fill("1").join("+")), { ok: true, result: "1001.0" });
  deepEqual(calculate(Array(1002).fill("1").join("+")), invalid("more than 1000 operations"));
  deepEqual(calculate("1" + " ".repeat(9999)), { ok: true, result: "1.0" });
  deepEqual(
    calculate("-".repeat(100_000) + "1"),
    invalid("expression longer than 10000 characters"),
  );
  deepEqual(calculate("(".repeat(100_000)), invalid("expression longer than 10000 characters"));
});
