import { deepEqual } from "node:assert/strict";
import { pythonFloatText, pythonRound } from "./python_number.ts";

Deno.test("pythonRound() rounds exact ties to even, as Python's round()", () => {
  deepEqual(pythonRound(0.125, 2), 0.12);
  deepEqual(pythonRound(0.375, 2), 0.38);
  deepEqual(pythonRound(2.5, 0), 2);
  deepEqual(pythonRound(3.5, 0), 4);
  deepEqual(pythonRound(-0.125, 2), -0.12);
});

Deno.test("pythonRound() rounds the stored binary value, not the decimal literal", () => {
  // 2.675 and 1.005 are stored just below; Python gives 2.67 and 1.0.
  deepEqual(pythonRound(2.675, 2), 2.67);
  deepEqual(pythonRound(1.005, 2), 1);
  deepEqual(pythonRound(10.1 + 20.2, 2), 30.3);
  deepEqual(pythonRound(0.1 + 0.2, 2), 0.3);
});

Deno.test("pythonRound() keeps the sign of a zero result", () => {
  deepEqual(Object.is(pythonRound(-0.001, 2), -0), true);
  deepEqual(pythonFloatText(pythonRound(-0.001, 2)), "-0.0");
});

Deno.test("pythonFloatText() prints floats as Python's str()", () => {
  deepEqual(pythonFloatText(10), "10.0");
  deepEqual(pythonFloatText(2.5), "2.5");
  deepEqual(pythonFloatText(0.1 + 0.2), "0.30000000000000004");
  deepEqual(pythonFloatText(1e-5), "1e-05");
  deepEqual(pythonFloatText(1e16), "1e+16");
  deepEqual(pythonFloatText(1234567890123456), "1234567890123456.0");
  deepEqual(pythonFloatText(Infinity), "inf");
  deepEqual(pythonFloatText(-Infinity), "-inf");
});
