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
