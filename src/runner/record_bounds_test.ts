import assert from "node:assert/strict";
import { trialRecord } from "../score/_trial_fixture.ts";
import {
  boundRecord,
  MAX_RECORD_TEXT_CHARS,
  MAX_TOOL_VALUE_CHARS,
  MAX_TURN_CHARS,
  MIN_KEPT_CHARS,
} from "./record_bounds.ts";
import { TrialRecordSchema } from "./trial_record.ts";

Deno.test("boundRecord() keeps a small record as it is", () => {
  const r = trialRecord();
  assert.equal(boundRecord(r), r);
});

Deno.test("boundRecord(): 250 agent turns of 1 MB stay within the record budget, each cut counted", () => {
  const mb = "y".repeat(1_000_000);
  const turns = Array.from({ length: 250 }, (_, i) => ({
    speaker: "agent" as const,
    text: mb,
    start_ms: i,
    end_ms: i + 1,
  }));
  const r = boundRecord(trialRecord({ turns }));
  const size = JSON.stringify(r).length;
  assert.ok(size < MAX_RECORD_TEXT_CHARS + 250 * (MIN_KEPT_CHARS + 200), `${size} chars`);
  assert.equal(r.turns.length, 250, "no turn is dropped");
  for (const t of r.turns) {
    assert.ok(t.truncated_chars! >= 1_000_000 - MAX_TURN_CHARS);
    assert.equal(
      t.text.length - t.text.indexOf(" … [truncated"),
      ` … [truncated ${t.truncated_chars} chars]`.length,
    );
    assert.equal(t.text.indexOf(" … [truncated") + t.truncated_chars!, 1_000_000);
  }
  assert.ok(TrialRecordSchema.safeParse(r).success);
});

Deno.test("boundRecord() cuts a huge tool result to the start of its JSON and counts what it cut", () => {
  const result = { rows: "z".repeat(500_000) };
  const r = boundRecord(trialRecord({
    tool_calls: [
      { side: "agent", name: "search", arguments: { q: 1 }, result, ok: true, at_ms: 0 },
    ],
  }));
  const call = r.tool_calls[0]!;
  assert.deepEqual(call.arguments, { q: 1 });
  const json = JSON.stringify(result);
  assert.equal(call.truncated_chars, json.length - MAX_TOOL_VALUE_CHARS);
  assert.equal(
    call.result,
    json.slice(0, MAX_TOOL_VALUE_CHARS) + ` … [truncated ${call.truncated_chars} chars]`,
  );
});

Deno.test("boundRecord() keeps a value it cannot serialise as a marker, not a crash", () => {
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  const r = boundRecord(trialRecord({
    tool_calls: [{ side: "agent", name: "t", arguments: loop, result: null, ok: false, at_ms: 0 }],
  }));
  assert.match(String(r.tool_calls[0]!.arguments), /^\[not serialisable: /);
  JSON.stringify(r);
});
