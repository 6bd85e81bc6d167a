import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import { RealtimeCall } from "../transport/openai_realtime_call.ts";
import { parseServerEvent } from "./openai_realtime.ts";

/** A session as a server sends it: every event the call reads, in a plausible order. */
const SESSION = [
  { type: "session.created", event_id: "e1", session: { type: "realtime" } },
  {
    type: "session.updated",
    event_id: "e2",
    session: { audio: { output: { format: { type: "audio/pcm", rate: 24000 } } } },
  },
  { type: "input_audio_buffer.speech_started", event_id: "e3", audio_start_ms: 10, item_id: "u" },
  { type: "input_audio_buffer.speech_stopped", event_id: "e4", audio_end_ms: 900, item_id: "u" },
  { type: "response.created", event_id: "e5", response: { id: "r1" } },
  {
    type: "response.output_audio.delta",
    event_id: "e6",
    response_id: "r1",
    item_id: "i1",
    output_index: 0,
    content_index: 0,
    delta: "AAABAAIAAwAEAAUA",
  },
  {
    type: "response.audio.delta",
    event_id: "e7",
    response_id: "r1",
    item_id: "i1",
    output_index: 0,
    content_index: 0,
    delta: "AAABAA==",
  },
  {
    type: "response.output_audio_transcript.delta",
    event_id: "e8",
    response_id: "r1",
    item_id: "i1",
    delta: "Hi",
  },
  {
    type: "response.output_audio_transcript.done",
    event_id: "e9",
    response_id: "r1",
    item_id: "i1",
    transcript: "Hi",
  },
  {
    type: "response.function_call_arguments.done",
    event_id: "e10",
    response_id: "r1",
    item_id: "f1",
    call_id: "c1",
    name: "add",
    arguments: '{"n":1}',
  },
  {
    type: "response.done",
    event_id: "e11",
    response: { id: "r1", status: "completed", usage: { input_tokens: 3, output_tokens: 4 } },
  },
  { type: "error", event_id: "e12", error: { type: "server_error", message: "oops" } },
  { type: "rate_limits.updated", event_id: "e13", rate_limits: [{ name: "requests" }] },
  { type: "conversation.item.added", event_id: "e14" },
];

Deno.test("parseServerEvent reads every event of a session, and names what is wrong with a bad one", () => {
  for (const e of SESSION) {
    const r = parseServerEvent(JSON.stringify(e));
    assert.ok(r.ok, r.ok ? "" : r.problem);
    assert.equal(r.event.type, e.type);
  }
  const bad: [string, RegExp][] = [
    ["not json", /not JSON/],
    ["[1,2]", /not an event object/],
    ['{"event_id":"x"}', /without a type/],
    ['{"type":"response.telepathy"}', /unknown type "response.telepathy"/],
    ['{"type":"response.output_audio.delta","delta":5}', /bad response.output_audio.delta/],
    ['{"type":"error","error":{}}', /bad error event: error.message/],
    ["[".repeat(100) + "]".repeat(100), /nested deeper than 64/],
  ];
  for (const [text, why] of bad) {
    const r = parseServerEvent(text);
    assert.ok(!r.ok, text);
    assert.match(r.problem, why);
  }
});

Deno.test("fuzz: random and truncated events never throw; the call takes them or names a problem", async () => {
  const rng = mulberry32(19);
  const texts: string[] = [];
  for (const e of SESSION) {
    const text = JSON.stringify(e);
    // Every truncation of every event.
    for (let n = 0; n < text.length; n++) texts.push(text.slice(0, n));
    // Random byte flips.
    for (let k = 0; k < 20; k++) {
      const chars = [...text];
      const at = Math.floor(rng() * chars.length);
      chars[at] = String.fromCharCode(Math.floor(rng() * 128));
      texts.push(chars.join(""));
    }
    // Fields of the wrong type.
    for (const key of Object.keys(e)) {
      for (const v of [null, 1, "x", [], {}, -1, 1e309]) {
        texts.push(JSON.stringify({ ...e, [key]: v }));
      }
    }
  }
  for (let k = 0; k < 500; k++) {
    texts.push(
      Array.from({ length: Math.floor(rng() * 200) }, () => String.fromCharCode(rng() * 0xffff))
        .join(
          "",
        ),
    );
  }
  const clock = new SimClock();
  const problems: string[] = [];
  const call = new RealtimeCall({
    clock,
    format: "pcm16",
    turnDetection: "server_vad",
    send: () => {},
    runTool: () => Promise.resolve({ ok: true, result: {} }),
    endsCall: () => false,
    onTurn: () => {},
    onUsage: () => {},
    trace: () => {},
    fail: (p) => problems.push(p),
    onBound: (what) => problems.push(what),
  });
  call.begin(false);
  let refused = 0;
  for (const text of texts) {
    const r = parseServerEvent(text);
    if (!r.ok) {
      refused++;
      assert.equal(typeof r.problem, "string");
      assert.ok(r.problem.length < 400, r.problem);
      continue;
    }
    call.receive(r.event);
    await clock.advance(5);
  }
  assert.ok(refused > texts.length / 2, `${refused} of ${texts.length} refused`);
  for (const p of problems) assert.equal(typeof p, "string");
  call.end();
  console.log(`fuzz: ${texts.length} inputs, ${refused} refused, ${problems.length} call problems`);
});
