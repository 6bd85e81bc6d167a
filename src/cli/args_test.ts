import assert from "node:assert/strict";
import { choiceFlag, fractionFlag, intFlag } from "./args.ts";

Deno.test("fractionFlag() takes a number from 0 to 1 and names the flag otherwise", () => {
  assert.equal(fractionFlag("min-success-rate", undefined), undefined);
  assert.equal(fractionFlag("min-success-rate", "0"), 0);
  assert.equal(fractionFlag("min-success-rate", "0.75"), 0.75);
  assert.equal(fractionFlag("min-success-rate", "1"), 1);
  for (const bad of ["-0.1", "1.5", "abc", "NaN", "Infinity"]) {
    assert.throws(
      () => fractionFlag("judge-threshold", bad),
      new RegExp(`--judge-threshold.*expected a number from 0 to 1, got "${bad}"`),
    );
  }
});

Deno.test("intFlag() takes an integer from its minimum and names the flag otherwise", () => {
  assert.equal(intFlag("trials", undefined, 3), 3);
  assert.equal(intFlag("trials", "2", 3), 2);
  assert.equal(intFlag("workers", "0", 1, 0), 0);
  for (const bad of ["0", "1.5", "abc", "Infinity"]) {
    assert.throws(() => intFlag("trials", bad, 3), /--trials.*expected an integer >= 1/);
  }
});

Deno.test("choiceFlag() takes one of its choices, the fallback when absent, and names the flag otherwise", () => {
  const formats = ["json", "md", "html"] as const;
  assert.equal(choiceFlag("format", undefined, formats, "json"), "json");
  assert.equal(choiceFlag("format", "md", formats, "json"), "md");
  assert.throws(
    () => choiceFlag("format", "xml", formats, "json"),
    (e: Error) => e.name === "InputError" && /unknown format "xml"/.test(e.message),
  );
});
