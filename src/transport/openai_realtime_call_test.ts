import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { pcm16ToBytes } from "../audio/pcm.ts";
import { mulawEncode } from "../audio/mulaw.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import type { ToolCallReply } from "../bridge/call.ts";
import {
  parseServerEvent,
  type RealtimeTurnDetection,
  sessionUpdate,
} from "../protocol/openai_realtime.ts";
import { RealtimeCall, type RealtimeTurn } from "./openai_realtime_call.ts";

type Sent = { type: string } & Record<string, unknown>;

function setup(
  options: {
    turnDetection?: RealtimeTurnDetection;
    format?: "pcm16" | "g711_ulaw";
    maxQueuedMs?: number;
  } = {},
) {
  const clock = new SimClock();
  const sent: Sent[] = [];
  const turns: RealtimeTurn[] = [];
  const tools: { name: string; args: unknown; at: number }[] = [];
  const failures: string[] = [];
  const bounds: string[] = [];
  const usage: unknown[] = [];
  const started: number[] = [];
  const format = options.format ?? "pcm16";
  const call = new RealtimeCall({
    clock,
    format,
    turnDetection: options.turnDetection ?? "server_vad",
    send: (e) => sent.push(e as unknown as Sent),
    runTool: (name, args): Promise<ToolCallReply> => {
      tools.push({ name, args, at: clock.now() });
      return Promise.resolve(
        name === "nope"
          ? { ok: false, result: { status: "error", error_type: "unknown_tool" } }
          : { ok: true, result: { status: "success", name } },
      );
    },
    endsCall: (name) => name === "end_conversation",
    onTurn: (t) => turns.push(t),
    onSpeechStart: (at) => started.push(at),
    onUsage: (u) => usage.push(u),
    trace: () => {},
    fail: (p) => failures.push(p),
    onBound: (what) => bounds.push(what),
    ...(options.maxQueuedMs !== undefined ? { maxQueuedMs: options.maxQueuedMs } : {}),
  });
  const rate = format === "pcm16" ? 24000 : 8000;
  /** A server event, through the parser as the mapping does. */
  const receive = (event: Record<string, unknown>) => {
    const parsed = parseServerEvent(JSON.stringify({ event_id: "ev", ...event }));
    assert.ok(parsed.ok, parsed.ok ? "" : parsed.problem);
    call.receive(parsed.event);
  };
  const audio = (response: string, ms: number, seed = 1, item = `item_${response}`) => {
    const samples = voicedSignal(rate, ms, seed);
    const bytes = format === "pcm16" ? pcm16ToBytes(samples) : mulawEncode(samples);
    receive({
      type: "response.output_audio.delta",
      response_id: response,
      item_id: item,
      output_index: 0,
      content_index: 0,
      delta: bytes.toBase64(),
    });
  };
  const done = (response: string, usage?: Record<string, unknown>) =>
    receive({ type: "response.done", response: { id: response, status: "completed", usage } });
  const types = () => sent.map((e) => e.type);
  return {
    clock,
    sent,
    turns,
    tools,
    failures,
    bounds,
    usage,
    started,
    call,
    receive,
    audio,
    done,
    types,
    rate,
  };
}

Deno.test("session.update carries the prompt, the tools' JSON Schemas, the audio format and the turn detection", () => {
  const tools = [{
    name: "add",
    description: "Adds",
    parameters: { type: "object", properties: { n: { type: "integer" } } },
  }];
  const u = sessionUpdate({
    instructions: "Be brief.",
    tools,
    audio: "g711_ulaw",
    turnDetection: "none",
  });
  assert.equal(u.type, "session.update");
  const s = u.session as unknown as Record<string, unknown>;
  assert.equal(s.type, "realtime");
  assert.equal(s.instructions, "Be brief.");
  assert.deepEqual(s.tools, [{ type: "function", ...tools[0] }]);
  assert.deepEqual(s.audio, {
    input: { format: { type: "audio/pcmu" }, turn_detection: null },
    output: { format: { type: "audio/pcmu" } },
  });
  const d = sessionUpdate({
    instructions: "",
    tools: [],
    audio: "pcm16",
    turnDetection: "semantic_vad",
  });
  assert.deepEqual((d.session as { audio: unknown }).audio, {
    input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "semantic_vad" } },
    output: { format: { type: "audio/pcm", rate: 24000 } },
  });
});

Deno.test("RealtimeCall streams the caller as 10 ms appends in real time, silence between (server VAD)", async () => {
  const { clock, call, sent, types } = setup();
  call.begin(false);
  await clock.advance(95);
  assert.equal(types().filter((t) => t === "input_audio_buffer.append").length, 10);
  let out = false;
  void call.speak(voicedSignal(24000, 300, 2)).then(() => (out = true));
  await clock.advance(280);
  assert.equal(out, false);
  await clock.advance(30);
  assert.equal(out, true);
  const appends = sent.filter((e) => e.type === "input_audio_buffer.append");
  const bytes = Uint8Array.fromBase64(appends[0]!.audio as string);
  assert.equal(bytes.length, 480, "10 ms of 24 kHz PCM16");
  assert.ok(!types().includes("input_audio_buffer.commit"), "the server's VAD ends the turn");
  call.end();
});

Deno.test("RealtimeCall without turn detection sends speech only, then commit and response.create", async () => {
  const { clock, call, types } = setup({ turnDetection: "none" });
  call.begin(true);
  assert.deepEqual(types(), ["response.create"], "the agent speaks first");
  await clock.advance(100);
  assert.deepEqual(types(), ["response.create"], "no silence is streamed");
  void call.speak(voicedSignal(24000, 200, 2));
  await clock.advance(250);
  assert.deepEqual(types().slice(-2), ["input_audio_buffer.commit", "response.create"]);
  assert.equal(types().filter((t) => t === "input_audio_buffer.append").length, 20);
  call.end();
});

Deno.test("RealtimeCall plays a response at its own rate, however fast it came, and hands it over once played", async () => {
  const { clock, call, receive, audio, done, turns, usage, started } = setup();
  call.begin(false);
  await clock.advance(1000);
  receive({ type: "response.created", response: { id: "r1" } });
  // 2 s of audio arrives at once (far faster than real time).
  for (let i = 0; i < 10; i++) audio("r1", 200, i);
  // The caller hears it start as its first sample plays, once (so it can cut in).
  assert.deepEqual(started, [1000]);
  receive({
    type: "response.output_audio_transcript.done",
    response_id: "r1",
    item_id: "item_r1",
    output_index: 0,
    content_index: 0,
    transcript: "Hello, how can I help?",
  });
  done("r1", { input_tokens: 12, output_tokens: 30, output_token_details: { audio_tokens: 25 } });
  assert.equal(usage.length, 1);
  assert.ok(Math.abs(call.queuedMs - 1990) <= 10, `${call.queuedMs} ms queued`);
  await clock.advance(1900);
  assert.equal(turns.length, 0, "still playing");
  await clock.advance(200);
  assert.equal(turns.length, 1);
  const t = turns[0]!;
  assert.equal(t.text, "Hello, how can I help?");
  assert.equal(t.startMs, 1000, "placed where its first sample played");
  assert.equal(t.samples.length, 48000, "all of it played");
  assert.equal(t.interrupted, false);
  assert.deepEqual(started, [1000], "one start per response");
  // The first 10 ms went out the moment it came.
  assert.equal(call.stats.max_queued_ms, 1990);
  call.end();
});

Deno.test("RealtimeCall: a tool runs at once, its output goes back, then one response.create after response.done", async () => {
  const { clock, call, receive, audio, done, tools, sent, types } = setup();
  call.begin(false);
  audio("r1", 500);
  receive({
    type: "response.function_call_arguments.done",
    response_id: "r1",
    item_id: "fc1",
    output_index: 1,
    call_id: "call_1",
    name: "add",
    arguments: '{"n":5}',
  });
  receive({
    type: "response.function_call_arguments.done",
    response_id: "r1",
    item_id: "fc2",
    output_index: 2,
    call_id: "call_2",
    name: "nope",
    arguments: "{}",
  });
  await clock.advance(0);
  assert.deepEqual(tools.map((t) => [t.name, t.args, t.at]), [["add", { n: 5 }, 0], [
    "nope",
    {},
    0,
  ]]);
  assert.ok(!types().includes("response.create"), "not before response.done");
  done("r1");
  await clock.advance(0);
  const outputs = sent.filter((e) => e.type === "conversation.item.create");
  assert.deepEqual(outputs.map((e) => e.item), [
    {
      type: "function_call_output",
      call_id: "call_1",
      output: '{"status":"success","name":"add"}',
    },
    {
      type: "function_call_output",
      call_id: "call_2",
      output: '{"status":"error","error_type":"unknown_tool"}',
    },
  ]);
  assert.equal(types().filter((t) => t === "response.create").length, 1);
  call.end();
});

Deno.test("RealtimeCall: end_conversation runs only once the audio before it has played, and asks for nothing more", async () => {
  const { clock, call, receive, audio, done, tools, turns, types } = setup();
  call.begin(false);
  audio("r1", 800);
  receive({
    type: "response.function_call_arguments.done",
    response_id: "r1",
    item_id: "fc1",
    output_index: 1,
    call_id: "call_end",
    name: "end_conversation",
    arguments: "{}",
  });
  done("r1");
  await clock.advance(500);
  assert.equal(tools.length, 0, "the goodbye is still playing");
  await clock.advance(400);
  assert.equal(turns.length, 1, "the goodbye is said first");
  assert.equal(tools.length, 1);
  // Its last 10 ms chunk went to the caller at 790 ms; the bridge ends the call after
  // the utterance's end (800 ms).
  assert.equal(tools[0]!.at, 790);
  assert.ok(!types().includes("response.create"));
  call.end();
});

Deno.test("RealtimeCall: the server hears the caller cut in: the queue drops, the turn ends with what played, truncate says how much", async () => {
  const { clock, call, receive, audio, turns, sent, types } = setup();
  call.begin(false);
  audio("r1", 2000);
  await clock.advance(700);
  receive({ type: "input_audio_buffer.speech_started", audio_start_ms: 650, item_id: "u1" });
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.interrupted, true);
  assert.equal(turns[0]!.samples.length, 24 * 710, "what played: 71 chunks of 10 ms");
  const truncate = sent.find((e) => e.type === "conversation.item.truncate");
  assert.deepEqual(truncate, {
    type: "conversation.item.truncate",
    item_id: "item_r1",
    content_index: 0,
    audio_end_ms: 710,
  });
  assert.ok(!types().includes("response.cancel"), "the server cancels its own response");
  // Late audio of the cut response is not played.
  audio("r1", 200);
  assert.equal(call.agentAudioPending, false);
  assert.ok(call.stats.cleared_ms >= 1280);
  call.end();
});

Deno.test("RealtimeCall without turn detection: the caller speaking over the agent cuts and cancels", async () => {
  const { clock, call, audio, turns, types } = setup({ turnDetection: "none" });
  call.begin(false);
  audio("r1", 1000);
  await clock.advance(300);
  void call.speak(voicedSignal(24000, 100, 3));
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.interrupted, true);
  assert.ok(types().includes("conversation.item.truncate"));
  assert.ok(types().includes("response.cancel"));
  call.end();
});

Deno.test("RealtimeCall in g711_ulaw: 8 kHz µ-law both ways", async () => {
  const { clock, call, sent, audio, done, turns } = setup({ format: "g711_ulaw" });
  call.begin(false);
  await clock.advance(5);
  const first = Uint8Array.fromBase64(
    sent.find((e) => e.type === "input_audio_buffer.append")!.audio as string,
  );
  assert.equal(first.length, 80, "10 ms of 8 kHz µ-law");
  audio("r1", 300);
  done("r1");
  await clock.advance(400);
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.sampleRate, 8000);
  assert.equal(turns[0]!.samples.length, 2400);
  call.end();
});

Deno.test("RealtimeCall: bad audio and runaway queues are protocol problems, not exceptions", () => {
  const { call, receive, failures } = setup();
  call.begin(false);
  receive({
    type: "response.output_audio.delta",
    response_id: "r1",
    item_id: "i",
    output_index: 0,
    content_index: 0,
    delta: "AAAA",
  });
  assert.match(failures[0]!, /odd byte count/);
  receive({
    type: "response.output_audio.delta",
    response_id: "r1",
    item_id: "i",
    output_index: 0,
    content_index: 0,
    delta: "not base64!",
  });
  assert.match(failures[1]!, /base64/);
  call.end();
  // A server far ahead of playback: past the bound, the delta is refused, not queued.
  const runaway = setup({ maxQueuedMs: 500 });
  runaway.call.begin(false);
  runaway.audio("r1", 300);
  runaway.audio("r1", 300);
  assert.equal(runaway.failures.length, 1);
  assert.match(runaway.failures[0]!, /more than 500 ms of audio queued ahead of playback/);
  assert.ok(runaway.call.queuedMs <= 300, `${runaway.call.queuedMs} ms queued`);
  runaway.call.end();
});

Deno.test("RealtimeCall: a flooding server is stopped at the wires' bounds: tool calls, responses, a turn's transcript, traces, a turn's audio", async () => {
  const call = (name: string, i: number) => ({
    type: "response.function_call_arguments.done",
    response_id: "r1",
    item_id: `fc${i}`,
    output_index: i,
    call_id: `call_${i}`,
    name,
    arguments: "{}",
  });
  // Tool calls beyond the burst, at once.
  const tools = setup();
  tools.call.begin(false);
  for (let i = 0; i < 150; i++) tools.receive(call("add", i));
  await tools.clock.advance(0);
  assert.deepEqual(tools.bounds, [
    "made tool calls faster than 10 a second (beyond 100 at once)",
  ]);
  assert.equal(tools.tools.length, 100, "the calls past the bound are not run");
  // A transcript that never ends.
  const words = setup();
  words.call.begin(false);
  const delta = {
    type: "response.output_audio_transcript.delta",
    response_id: "r2",
    item_id: "i",
    output_index: 0,
    content_index: 0,
    delta: "x".repeat(1024),
  };
  for (let i = 0; i < 40; i++) words.receive(delta);
  assert.deepEqual(words.bounds, ["turn exceeded 32768 characters"]);
  // error events without end: the traces they make the call keep are bounded.
  const noise = setup();
  noise.call.begin(false);
  const error = {
    type: "error",
    error: { type: "server_error", message: "e".repeat(60_000) },
  };
  for (let i = 0; i < 200 && noise.bounds.length === 0; i++) noise.receive(error);
  assert.deepEqual(noise.bounds, ["sent more than 8388608 characters of traces and notes"]);
  // Nothing more is taken once past a bound.
  noise.receive(error);
  assert.equal(noise.bounds.length, 1);
  assert.ok(noise.call.stats.errors < 200);
  // New responses without end (each is kept until the call ends).
  const many = setup();
  many.call.begin(false);
  for (let i = 0; i < 150; i++) {
    many.receive({ type: "response.created", response: { id: `r${i}` } });
  }
  assert.deepEqual(many.bounds, ["started responses faster than 10 a second (beyond 100 at once)"]);
  assert.equal(many.call.stats.responses, 101);
  // A response whose audio plays on past two minutes.
  const long = setup({ format: "g711_ulaw" });
  long.call.begin(false);
  for (let s = 0; s < 125; s++) long.audio("r3", 1000, s);
  await long.clock.advance(121_000);
  assert.deepEqual(long.bounds, ["turn exceeded 120000 ms of audio"]);
  assert.equal(long.turns.length, 0, "the endless turn is not handed over");
});

Deno.test("RealtimeCall: speech_started cuts a response whose audio ran dry for a moment, or has not come yet: what played is the turn, truncate says it, the rest is not played", async () => {
  const { clock, call, receive, audio, turns, sent } = setup();
  call.begin(false);
  receive({ type: "response.created", response: { id: "r1" } });
  audio("r1", 100);
  // The server streams in real time: between two deltas nothing is queued.
  await clock.advance(150);
  assert.equal(call.agentAudioPending, false);
  receive({ type: "input_audio_buffer.speech_started", audio_start_ms: 140, item_id: "u1" });
  assert.equal(turns.length, 1, "the cut-in is honoured with nothing queued");
  assert.equal(turns[0]!.interrupted, true);
  assert.equal(turns[0]!.samples.length, 2400, "what played: 100 ms");
  const truncates = sent.filter((e) => e.type === "conversation.item.truncate");
  assert.deepEqual(truncates.map((e) => e.audio_end_ms), [100]);
  // A never-yielding server's audio after the cut is not played.
  audio("r1", 300);
  assert.equal(call.agentAudioPending, false);
  // A response in progress whose audio has not come yet is cut too.
  receive({ type: "response.created", response: { id: "r2" } });
  receive({ type: "input_audio_buffer.speech_started", audio_start_ms: 400, item_id: "u2" });
  audio("r2", 300);
  assert.equal(call.agentAudioPending, false);
  await clock.advance(2000);
  assert.equal(turns.length, 1);
  call.end();
});

Deno.test("RealtimeCall: audio read late plays from when it arrived: the playback catches up and the queue does not carry the stall", async () => {
  const { clock, call, receive, done, turns } = setup();
  call.begin(false);
  receive({ type: "response.created", response: { id: "r1" } });
  const delta = (k: number, atMs?: number) => {
    const samples = voicedSignal(24000, 100, k);
    const parsed = parseServerEvent(JSON.stringify({
      type: "response.output_audio.delta",
      event_id: "e",
      response_id: "r1",
      item_id: "item_r1",
      output_index: 0,
      content_index: 0,
      delta: pcm16ToBytes(samples).toBase64(),
    }));
    assert.ok(parsed.ok);
    call.receive(parsed.event, atMs);
  };
  // Real time: 100 ms deltas every 100 ms, the first at 0.
  for (let k = 0; k < 3; k++) {
    delta(k);
    await clock.advance(100);
  }
  // This thread was held 190 ms: the deltas that came at 300 and 400 are read at 490.
  await clock.advance(190);
  delta(3, 300);
  delta(4, 400);
  await clock.advance(10);
  delta(5);
  assert.ok(call.queuedMs <= 100, `${call.queuedMs} ms queued after the stall`);
  await clock.advance(100);
  delta(6);
  assert.ok(call.queuedMs <= 100, `${call.queuedMs} ms queued`);
  done("r1");
  await clock.advance(100);
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.startMs, 0);
  assert.equal(turns[0]!.samples.length, 7 * 2400, "every delta played");
  assert.ok(call.stats.max_queued_ms <= 200, `${call.stats.max_queued_ms} ms queued at most`);
  // Through 700 ms every delta has played: the last came at 600.
  assert.equal(call.stats.played_ms, 700);
  call.end();
});

Deno.test("RealtimeCall: a turn's length bound counts samples: a 27 s turn in 2 ms deltas is no flood", async () => {
  const { clock, call, receive, audio, done, turns, bounds } = setup({ format: "g711_ulaw" });
  call.begin(false);
  receive({ type: "response.created", response: { id: "r1" } });
  // 2 ms deltas in real time: each plays as a 10 ms chunk holding 2 ms of audio.
  for (let i = 0; i < 13_500; i++) {
    audio("r1", 2, i % 7);
    await clock.advance(2);
  }
  done("r1");
  await clock.advance(100);
  assert.deepEqual(bounds, []);
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.samples.length, 27 * 8000);
  call.end();
});

Deno.test("RealtimeCall: a response that never gets response.done is a turn once it has played and the line has been quiet 1 s; the silence timer hears it speak", async () => {
  const speaking: number[] = [];
  const s = setup();
  // A call whose line hears the agent speak (the bridge's silence timer).
  const rt = new RealtimeCall({
    clock: s.clock,
    format: "pcm16",
    turnDetection: "server_vad",
    send: () => {},
    runTool: () => Promise.resolve({ ok: true, result: {} }),
    endsCall: () => false,
    onTurn: (t) => s.turns.push(t),
    onSpeaking: () => speaking.push(s.clock.now()),
    onUsage: () => {},
    trace: () => {},
    fail: (p) => s.failures.push(p),
    onBound: (w) => s.bounds.push(w),
  });
  rt.begin(false);
  const push = (id: string, ms: number) => {
    const parsed = parseServerEvent(JSON.stringify({
      type: "response.output_audio.delta",
      event_id: "e",
      response_id: id,
      item_id: `item_${id}`,
      output_index: 0,
      content_index: 0,
      delta: pcm16ToBytes(voicedSignal(24000, ms, 4)).toBase64(),
    }));
    assert.ok(parsed.ok);
    rt.receive(parsed.event);
  };
  push("r1", 4500);
  await s.clock.advance(4500);
  assert.equal(s.turns.length, 0, "it may still go on");
  assert.equal(speaking.length, 450, "one a chunk played");
  assert.equal(speaking.at(-1), 4490);
  await s.clock.advance(1000);
  assert.equal(s.turns.length, 1, "heard: a turn");
  assert.equal(s.turns[0]!.samples.length, 4500 * 24);
  assert.equal(s.turns[0]!.interrupted, false);
  // More of it later is a turn of its own.
  push("r1", 500);
  await s.clock.advance(1600);
  assert.equal(s.turns.length, 2);
  assert.equal(s.turns[1]!.startMs, 5500);
  assert.equal(s.turns[1]!.samples.length, 500 * 24);
  // Cut by the call's end (the server closed): what played is handed over first.
  push("r2", 2000);
  await s.clock.advance(700);
  rt.end();
  assert.equal(s.turns.length, 3);
  assert.equal(s.turns[2]!.samples.length, 710 * 24);
  assert.deepEqual(s.bounds, []);
});
