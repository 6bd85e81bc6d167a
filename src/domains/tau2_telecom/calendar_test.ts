import assert from "node:assert/strict";
import { addDays, firstOfMonth, lastOfMonth } from "./calendar.ts";

Deno.test("addDays() crosses month and year ends", () => {
  assert.equal(addDays("2025-03-01", 14), "2025-03-15");
  assert.equal(addDays("2025-03-01", -1), "2025-02-28");
  assert.equal(addDays("2024-12-31", 1), "2025-01-01");
  assert.equal(addDays("2024-02-28", 1), "2024-02-29");
});

Deno.test("firstOfMonth() and lastOfMonth() step months across years", () => {
  assert.equal(firstOfMonth("2025-02-25"), "2025-02-01");
  assert.equal(firstOfMonth("2025-02-25", 1), "2025-03-01");
  assert.equal(firstOfMonth("2025-01-15", -1), "2024-12-01");
  assert.equal(firstOfMonth("2025-12-15", 1), "2026-01-01");
  assert.equal(lastOfMonth("2025-02-25"), "2025-02-28");
  assert.equal(lastOfMonth("2025-02-25", -1), "2025-01-31");
  assert.equal(lastOfMonth("2024-02-10"), "2024-02-29");
  assert.equal(lastOfMonth("2025-11-30", 1), "2025-12-31");
});

Deno.test("calendar functions reject a text that is not a date", () => {
  assert.throws(() => addDays("25/02/2025", 1), /not a date/);
});
