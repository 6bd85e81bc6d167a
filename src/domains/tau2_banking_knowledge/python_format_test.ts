import assert from "node:assert/strict";
import { pyJsonDumps, pyStr, pyThousands, pyTitle, titled, truthy } from "./python_format.ts";

Deno.test("str.title(), truthiness and {:,} as Python's", () => {
  assert.equal(titled("goods_services_not_received"), "Goods Services Not Received");
  assert.equal(pyTitle("x2b o'neil"), "X2B O'Neil");
  assert.deepEqual([0, "", null, [], {}, false, "0", 0.5, [0]].map(truthy), [
    false,
    false,
    false,
    false,
    false,
    false,
    true,
    true,
    true,
  ]);
  assert.equal(pyThousands(2500), "2,500");
  assert.equal(pyThousands(1234567), "1,234,567");
});

Deno.test("str(value) of record fields: floats as Python's, ints in the counter fields, repr for the rest", () => {
  assert.equal(pyStr(150, "amount"), "150.0");
  assert.equal(pyStr(3, "pin_attempts_remaining"), "3");
  assert.equal(pyStr(true), "True");
  assert.equal(pyStr(null), "None");
  assert.equal(pyStr({ a: [1, "x"], b: false }), "{'a': [1.0, 'x'], 'b': False}");
  assert.equal(pyJsonDumps({ b: "é", a: 1 }, { sortKeys: true }), '{"a": 1.0, "b": "\\u00e9"}');
});
