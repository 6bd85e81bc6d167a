import assert from "node:assert/strict";
import { DtmfDataSchema, parseMessage, rtvi, SendTextDataSchema } from "./messages.ts";

Deno.test("rtvi() leaves out undefined id and data, as pipecat's exclude_none", () => {
  assert.equal(
    JSON.stringify(rtvi("bot-started-speaking")),
    '{"label":"rtvi-ai","type":"bot-started-speaking"}',
  );
  assert.deepEqual(rtvi("bot-ready", { version: "2.1.0" }, "x"), {
    label: "rtvi-ai",
    type: "bot-ready",
    id: "x",
    data: { version: "2.1.0" },
  });
});

Deno.test("parseMessage ignores other labels and keeps a readable id on bad envelopes", () => {
  assert.deepEqual(parseMessage('{"label":"other","type":"x"}'), { ok: true, message: undefined });
  const bad = parseMessage('{"label":"rtvi-ai","id":"r1","type":7}');
  assert.equal(bad.ok, false);
  assert.equal((bad as { id?: string }).id, "r1");
  assert.match((bad as { error: string }).error, /type/);
});

Deno.test("parseMessage names invalid JSON and non-objects", () => {
  assert.match((parseMessage("{nope") as { error: string }).error, /^invalid JSON/);
  assert.match((parseMessage("[1]") as { error: string }).error, /JSON object/);
  assert.match((parseMessage("null") as { error: string }).error, /JSON object/);
});

Deno.test("dtmf data accepts 2.1 buttons and 2.0 single buttons, and refuses other keys", () => {
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["1", "#", "*"] }).success, true);
  assert.equal(DtmfDataSchema.safeParse({ button: "9" }).success, true);
  assert.equal(DtmfDataSchema.safeParse({ buttons: [] }).success, false);
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["12"] }).success, false);
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["x"] }).success, false);
});

Deno.test("send-text data keeps pipecat's options and our voice extension", () => {
  const parsed = SendTextDataSchema.parse({
    content: "hi",
    options: { run_immediately: false, audio_response: true },
    voice: "MACHINE",
  });
  assert.equal(parsed.voice, "MACHINE");
  assert.equal(SendTextDataSchema.safeParse({ content: 3 }).success, false);
});
