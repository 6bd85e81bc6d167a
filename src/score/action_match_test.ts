import { deepEqual as assertEquals } from "node:assert/strict";
import { actionsMatch, matchList, pythonFloat, scalarsMatch } from "./action_match.ts";

Deno.test("actionsMatch() treats a list of one object as that object, on both sides", () => {
  assertEquals(actionsMatch([{ a: 1 }], { a: 1, b: 2 }), true);
  assertEquals(actionsMatch({ a: 1 }, [{ a: 1, b: 2 }]), true);
  assertEquals(actionsMatch([{ a: 1 }], [{ a: 2 }]), false);
});

Deno.test("actionsMatch() keeps only the last prediction when the reference has one item", () => {
  // The first prediction matches, but rule 3 drops it: only the last one is compared.
  assertEquals(actionsMatch([{ a: 1 }], [{ a: 1 }, { a: 2 }]), false);
  assertEquals(actionsMatch([{ a: 2 }], [{ a: 1 }, { a: 2 }]), true);
  assertEquals(actionsMatch({ a: 1 }, [{ a: 9 }, { a: 1 }]), true);
});

Deno.test("actionsMatch() with disallow_extra_items fails when the list lengths differ", () => {
  const ref = [{ a: 1 }, { b: 2 }];
  const pred = [{ a: 1 }, { b: 2 }, { c: 3 }];
  assertEquals(actionsMatch(ref, pred), true);
  assertEquals(actionsMatch(ref, pred, { disallow_extra_items: true }), false);
  assertEquals(actionsMatch(ref, pred.slice(0, 2), { disallow_extra_items: true }), true);
});

Deno.test("actionsMatch() needs a distinct prediction for each reference item, greedily", () => {
  assertEquals(actionsMatch([{ a: 1 }, { a: 1 }], [{ a: 1, x: 1 }, { a: 2 }]), false);
  assertEquals(actionsMatch([{ a: 1 }, { a: 1 }], [{ a: 2 }, { a: 1 }, { a: 1 }]), true);
  // Order-free.
  assertEquals(actionsMatch([{ a: 2 }, { a: 1 }], [{ a: 1 }, { a: 2 }]), true);
  // Greedy, first unused match: {} takes prediction 0, then {a: 1} finds nothing left.
  assertEquals(matchList([{}, { a: 1 }], [{ a: 1 }, { b: 1 }]), [0, null]);
});

Deno.test("valuesMatch() allows extra prediction keys but not missing ones", () => {
  assertEquals(
    actionsMatch({ name: "x", args: { id: 1 } }, { name: "x", args: { id: 1, y: 2 }, result: 3 }),
    true,
  );
  assertEquals(
    actionsMatch({ name: "x", args: { id: 1, y: 2 } }, { name: "x", args: { id: 1 } }),
    false,
  );
  // A key present with value null is present.
  assertEquals(actionsMatch({ k: null }, { k: null }), true);
  assertEquals(actionsMatch({ k: null }, {}), false);
});

Deno.test("nested lists match order-free and an empty reference list matches anything", () => {
  assertEquals(
    actionsMatch({ actions: [{ n: "b" }, { n: "a" }] }, [{ actions: [{ n: "a" }, { n: "b" }] }]),
    true,
  );
  assertEquals(actionsMatch({ actions: [] }, [{ actions: [{ n: "a" }, { n: "b" }] }]), true);
  assertEquals(actionsMatch({ actions: [{ n: "a" }] }, [{ actions: "a" }]), false);
  assertEquals(actionsMatch({ k: { x: 1 } }, { k: [{ x: 1 }] }), false);
});

Deno.test("scalarsMatch() compares as Python floats where both convert", () => {
  assertEquals(scalarsMatch(1, "1.0"), true);
  assertEquals(scalarsMatch(true, 1), true);
  assertEquals(scalarsMatch(false, "0"), true);
  assertEquals(scalarsMatch("1_000", 1000), true);
  assertEquals(scalarsMatch(" 2.5 ", 2.5), true);
  // isclose(rtol=1e-5, atol=1e-8): 100000 vs 100001 differ by 1 <= 1e-8 + 1e-5 * 100000 = 1.
  assertEquals(scalarsMatch(100000, 100001), true);
  assertEquals(scalarsMatch(100000, 100001.1), false);
  assertEquals(scalarsMatch(0, 1e-9), true);
  assertEquals(scalarsMatch(0, 1e-7), false);
  assertEquals(scalarsMatch("nan", "nan"), false);
  assertEquals(scalarsMatch("inf", Infinity), true);
  assertEquals(scalarsMatch("inf", 1e308), false);
  assertEquals(scalarsMatch("-Infinity", "-inf"), true);
});

Deno.test("scalarsMatch() compares as strings otherwise, with the optional normalisations", () => {
  assertEquals(scalarsMatch(null, "None"), true);
  assertEquals(scalarsMatch(null, null), true);
  assertEquals(scalarsMatch("ABC", "abc"), false);
  assertEquals(scalarsMatch("ABC", "abc", { ignore_capitalization: true }), true);
  assertEquals(scalarsMatch("no longer needed!", "no longer needed"), false);
  assertEquals(
    scalarsMatch("no longer needed!", "no-longer needed", { ignore_punctuation: true }),
    false,
  );
  assertEquals(
    scalarsMatch("no longer, needed!", "no longer needed", { ignore_punctuation: true }),
    true,
  );
  assertEquals(scalarsMatch("#W123", "w123", { ignore_punctuation: true }), false);
  assertEquals(
    scalarsMatch("#W123", "w123", { ignore_punctuation: true, ignore_capitalization: true }),
    true,
  );
  // "1e5x" is not a float: compared as text.
  assertEquals(scalarsMatch("1e5x", 100000), false);
});

Deno.test("pythonFloat() accepts what Python's float() accepts", () => {
  assertEquals(pythonFloat("1e3"), 1000);
  assertEquals(pythonFloat(".5"), 0.5);
  assertEquals(pythonFloat("5."), 5);
  assertEquals(pythonFloat("+7"), 7);
  assertEquals(pythonFloat("Infinity"), Infinity);
  assertEquals(Number.isNaN(pythonFloat("NaN")), true);
  assertEquals(pythonFloat("0x10"), undefined);
  assertEquals(pythonFloat("1__0"), undefined);
  assertEquals(pythonFloat(""), undefined);
  assertEquals(pythonFloat(null), undefined);
  assertEquals(pythonFloat({}), undefined);
});
