import { deepEqual as assertEquals } from "node:assert/strict";
import { diffState, stateDiffLine } from "./state_diff.ts";

Deno.test("diffState() names each changed, added and removed path with both values", () => {
  const shared = { name: "Ada", flights: [{ id: "F1" }] };
  const expected = {
    reservations: { ABC123: { status: "cancelled", seats: [1, 2], user: shared } },
    users: { u1: shared },
  };
  const actual = {
    reservations: { ABC123: { status: "confirmed", seats: [1], user: shared, note: "x" } },
    users: { u1: shared },
  };
  const d = diffState(expected, actual);
  assertEquals(d, {
    total: 3,
    entries: [
      { path: "reservations.ABC123.note", kind: "added", actual: '"x"' },
      { path: "reservations.ABC123.seats[1]", kind: "removed", expected: "2" },
      {
        path: "reservations.ABC123.status",
        kind: "changed",
        expected: '"cancelled"',
        actual: '"confirmed"',
      },
    ],
  });
  assertEquals(
    stateDiffLine(d.entries[2]!),
    'reservations.ABC123.status: expected "cancelled", got "confirmed"',
  );
  assertEquals(stateDiffLine(d.entries[0]!), 'reservations.ABC123.note: not expected, got "x"');
  assertEquals(stateDiffLine(d.entries[1]!), "reservations.ABC123.seats[1]: missing, expected 2");
  assertEquals(diffState(expected, structuredClone(expected)), { entries: [], total: 0 });
});

Deno.test("diffState() keeps the first paths and counts the rest; values are clipped", () => {
  const expected = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i]));
  const actual = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, -i - 1]));
  const d = diffState(expected, actual, { maxEntries: 5 });
  assertEquals([d.entries.length, d.total], [5, 30]);
  const long = diffState({ a: "x".repeat(500) }, { a: 1 }, { maxValueChars: 10 });
  assertEquals(long.entries[0]!.expected, '"xxxxxxxxx… (502 chars)');
  // A key that is not a plain name is quoted; a type change is a change.
  assertEquals(diffState({ "a b": [1] }, { "a b": { 0: 1 } }).entries[0]!.path, '"a b"');
});
