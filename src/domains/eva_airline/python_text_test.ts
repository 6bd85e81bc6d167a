import assert from "node:assert/strict";
import { pyFloat, pyRepr, pyStr } from "./python_text.ts";

Deno.test("pyFloat prints numbers as Python prints floats", () => {
  assert.equal(pyFloat(188), "188.0");
  assert.equal(pyFloat(0), "0.0");
  assert.equal(pyFloat(74.98), "74.98");
  assert.equal(pyFloat(0.00001), "1e-05");
  assert.equal(pyFloat(1e16), "1e+16");
  assert.equal(pyFloat(-2.5), "-2.5");
});

Deno.test("pyRepr prints JSON values as Python's repr", () => {
  assert.equal(
    pyRepr({ a: [1, true, null], "b'": "it's" }),
    `{'a': [1, True, None], "b'": "it's"}`,
  );
  assert.equal(pyRepr("tab\there\\"), "'tab\\there\\\\'");
  assert.equal(pyRepr(`both ' and "`), `'both \\' and "'`);
  assert.equal(pyRepr("é\u0001"), "'é\\x01'");
  assert.equal(pyStr("plain"), "plain");
  assert.equal(pyStr(1.5), "1.5");
});
