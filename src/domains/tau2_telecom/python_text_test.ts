import assert from "node:assert/strict";
import { pyFixed, pyFloat, pyRepr, pyRound } from "./python_text.ts";

Deno.test("pyFloat() prints whole floats with .0 and small ones in exponent form", () => {
  assert.equal(pyFloat(2), "2.0");
  assert.equal(pyFloat(0), "0.0");
  assert.equal(pyFloat(-3), "-3.0");
  assert.equal(pyFloat(0.1), "0.1");
  assert.equal(pyFloat(160.5), "160.5");
  assert.equal(pyFloat(0.00001), "1e-05");
});

Deno.test("pyFixed() rounds exact binary ties to even, as Python's format does", () => {
  assert.equal(pyFixed(0.125, 2), "0.12");
  assert.equal(pyFixed(0.375, 2), "0.38");
  assert.equal(pyFixed(-0.125, 2), "-0.12");
  assert.equal(pyFixed(2.5, 0), "2");
  assert.equal(pyFixed(3.5, 0), "4");
  // Not a tie in binary (1.115 is stored just below), so it rounds down.
  assert.equal(pyFixed(1.115, 2), "1.11");
  assert.equal(pyFixed(1.005, 2), "1.00");
  assert.equal(pyFixed(10, 2), "10.00");
  assert.equal(pyFixed(0.2, 2), "0.20");
});

Deno.test("pyRound() gives Python's round(x, 2)", () => {
  assert.equal(pyRound(275 * 0.8, 2), 220);
  assert.equal(pyRound(55 * 0.2 * 0.1, 2), 1.1);
  assert.equal(pyRound(0.125, 2), 0.12);
  assert.equal(pyRound(2.675, 2), 2.67);
});

Deno.test("pyRepr() prints dicts, lists and scalars as Python's repr", () => {
  assert.equal(
    pyRepr({ server_address: "192.168.1.1", protocol: null, ok: true, n: 3 }),
    "{'server_address': '192.168.1.1', 'protocol': None, 'ok': True, 'n': 3}",
  );
  assert.equal(pyRepr(["sms", "storage"]), "['sms', 'storage']");
  assert.equal(pyRepr("it's"), `"it's"`);
  assert.equal(pyRepr(`a'b"c`), `'a\\'b"c'`);
  assert.equal(pyRepr("line\nbreak"), "'line\\nbreak'");
});
