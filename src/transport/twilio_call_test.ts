import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { Vad } from "../audio/vad.ts";
import { decodeBase64 } from "../protocol/audio_payload.ts";
import { type HeardTurn, JITTER_MAX_MS, JITTER_MIN_MS, TwilioCall } from "./twilio_call.ts";

const SIDS = { streamSid: "MZ1", callSid: "CA1", accountSid: "AC1" };

async function setup() {
  const clock = new SimClock();
  const sent: Record<string, unknown>[] = [];
  const turns: HeardTurn[] = [];
  const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
  const call = new TwilioCall({
    clock,
    stream: SIDS,
    send: (m) => sent.push(m as Record<string, unknown>),
    vad,
    onTurn: (t) => turns.push(t),
  });
  const events = () => sent.map((m) => m.event);
  const media = () => sent.filter((m) => m.event === "media") as { media: { payload: string } }[];
  return { clock, sent, turns, vad, call, events, media };
}

Deno.test("TwilioCall streams connected, start, then 20 ms µ-law frames with silence between", async () => {
  const { clock, sent, call, events, media, vad } = await setup();
  call.begin();
  assert.deepEqual(events().slice(0, 2), ["connected", "start"]);
  const start = sent[1] as { start: { streamSid: string; mediaFormat: unknown } };
  assert.equal(start.start.streamSid, "MZ1");
  assert.deepEqual(start.start.mediaFormat, {
    encoding: "audio/x-mulaw",
    sampleRate: 8000,
    channels: 1,
  });
  await clock.advance(100);
  assert.equal(media().length, 6, "frames at 0, 20, ..., 100 ms");
  const silent = decodeBase64(media()[0]!.media.payload, 1 << 20);
  assert.ok(silent.ok && silent.value.length === 160);
  assert.ok(silent.ok && mulawDecode(silent.value).every((s) => s === 0));
  // The caller speaks 400 ms: frames carry it, and `speak` resolves once it is out.
  const speech = voicedSignal(8000, 400, 1);
  let out = false;
  void call.speak(speech).then(() => (out = true));
  await clock.advance(380);
  assert.equal(out, false);
  await clock.advance(40);
  assert.equal(out, true);
  const voiced = media().slice(6, 26).map((m) => decodeBase64(m.media.payload, 1 << 20));
  assert.ok(voiced.every((v) => v.ok && mulawDecode(v.value).some((s) => Math.abs(s) > 100)));
  call.press("1#");
  assert.deepEqual(
    sent.filter((m) => m.event === "dtmf").map((m) => (m.dtmf as { digit: string }).digit),
    ["1", "#"],
  );
  call.end();
  assert.equal(events().at(-1), "stop");
  const n = sent.length;
  await clock.advance(200);
  assert.equal(sent.length, n, "nothing after stop");
  vad.free();
});

Deno.test("TwilioCall echoes a mark once the audio before it has played; clear drops audio and echoes marks", async () => {
  const { clock, sent, call, vad } = await setup();
  call.begin();
  const marks = () =>
    sent.filter((m) => m.event === "mark").map((m) => (m.mark as { name: string }).name);
  // 200 ms of agent audio, then a mark.
  call.receive({
    event: "media",
    streamSid: "MZ1",
    mulaw: mulawEncode(voicedSignal(8000, 200, 2)),
  });
  call.receive({ event: "mark", streamSid: "MZ1", name: "m1" });
  assert.deepEqual(marks(), []);
  // Played after the jitter buffer's least depth (20 ms), then 200 ms of audio.
  await clock.advance(150 + JITTER_MIN_MS);
  assert.deepEqual(marks(), [], "not yet played");
  await clock.advance(60);
  assert.deepEqual(marks(), ["m1"]);
  // A mark with nothing queued is echoed at once.
  call.receive({ event: "mark", streamSid: "MZ1", name: "m2" });
  assert.deepEqual(marks(), ["m1", "m2"]);
  // Barge-in: 1 s queued, a mark, then clear.
  call.receive({
    event: "media",
    streamSid: "MZ1",
    mulaw: mulawEncode(voicedSignal(8000, 1000, 3)),
  });
  call.receive({ event: "mark", streamSid: "MZ1", name: "m3" });
  await clock.advance(100);
  assert.ok(call.queuedMs > 800);
  call.receive({ event: "clear", streamSid: "MZ1" });
  assert.deepEqual(marks(), ["m1", "m2", "m3"]);
  assert.equal(call.queuedMs, 0);
  assert.equal(call.stats.clears, 1);
  assert.ok(call.stats.clearedMs > 800);
  call.end();
  vad.free();
});

Deno.test("TwilioCall: a clear ends the agent's turn there, cut off, with the audio that had arrived (the jitter buffer's too)", async () => {
  const { clock, call, turns, vad } = await setup();
  call.begin();
  await clock.advance(500);
  // The agent speaks in real time, 20 ms a frame, and clears after 600 ms of it.
  const speech = mulawEncode(voicedSignal(8000, 2000, 4));
  const speak600ms = async () => {
    for (let k = 0; k < 30; k++) {
      call.receive({
        event: "media",
        streamSid: "MZ1",
        mulaw: speech.subarray(k * 160, k * 160 + 160),
      });
      await clock.advance(20);
    }
  };
  await speak600ms();
  assert.equal(turns.length, 0, "still speaking");
  call.receive({ event: "clear", streamSid: "MZ1" });
  assert.equal(turns.length, 1, "the clear ends the turn");
  const turn = turns[0]!;
  assert.equal(turn.interrupted, true);
  assert.equal(turn.audioStartMs, 500);
  // All 600 ms it sent before the clear, not the 580 or so played after the buffer's delay.
  assert.equal(turn.samples.length, 30 * 160);
  // The VAD's tail on the silence after it is no turn; the agent's next audio is a new one.
  await clock.advance(400);
  await speak600ms();
  await clock.advance(1000);
  assert.equal(turns.length, 2);
  assert.equal(turns[1]!.audioStartMs, 1500);
  assert.equal(turns[1]!.interrupted, undefined);
  call.end();
  vad.free();
});

Deno.test("TwilioCall finds the agent's turns by VAD in the audio as played", async () => {
  const { clock, call, turns, vad } = await setup();
  call.begin();
  await clock.advance(500);
  // One second of speech-like audio, then silence; then another half second.
  call.receive({
    event: "media",
    streamSid: "MZ1",
    mulaw: mulawEncode(voicedSignal(8000, 1000, 4)),
  });
  await clock.advance(2000);
  assert.equal(turns.length, 1);
  const t = turns[0]!;
  // As played: after the jitter buffer's 20 ms; the audio is placed where it arrived.
  assert.ok(t.startMs >= 480 && t.startMs <= 820, `start ${t.startMs}`);
  assert.ok(t.endMs >= 1320 && t.endMs <= 1620, `end ${t.endMs}`);
  assert.equal(t.audioStartMs, 500);
  assert.ok(t.samples.length >= 8000, "the turn's audio is kept");
  call.receive({
    event: "media",
    streamSid: "MZ1",
    mulaw: mulawEncode(voicedSignal(8000, 500, 5)),
  });
  await clock.advance(200);
  call.end(); // a turn in progress ends with the stream
  assert.equal(turns.length, 2);
  vad.free();
});

Deno.test("TwilioCall bounds the agent: a minute of media ahead of real time, two minutes a turn (SimClock)", async () => {
  const clock = new SimClock();
  const bounds: string[] = [];
  const turns: HeardTurn[] = [];
  const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
  const call = new TwilioCall({
    clock,
    stream: SIDS,
    send: () => {},
    vad,
    onTurn: (t) => turns.push(t),
    onBound: (what) => bounds.push(what),
  });
  try {
    call.begin();
    const second = mulawEncode(voicedSignal(8000, 1000, 2));
    const media = (mulaw: Uint8Array) => call.receive({ event: "media", streamSid: "MZ1", mulaw });
    // 59 s at once (a reply sent as fast as it is made) is queued...
    for (let i = 0; i < 59; i++) media(second);
    assert.deepEqual(bounds, []);
    assert.equal(call.queuedMs, 59_000);
    // ...and plays out in real time; then the agent talks on, a second each second.
    for (let s = 0; s < 125 && bounds.length === 0; s++) {
      await clock.advance(1000);
      media(second);
    }
    // Speech began at once: two minutes of it are one turn too long.
    assert.deepEqual(bounds, ["turn exceeded 120000 ms of audio"]);
    assert.ok(Math.abs(clock.now() - 120_000) <= 1500, `bound at ${clock.now()} ms`);
    assert.deepEqual(turns, [], "no turn of it is kept");
    assert.equal(call.queuedMs, 0);
  } finally {
    call.end();
    vad.free();
  }
});

Deno.test("TwilioCall bounds the agent: more than a minute ahead at once, empty frames and marks counted", async () => {
  for (
    const [flood, expected] of [
      ["media", "sent audio faster than real time (more than 60000 ms ahead)"],
      ["empty", "sent audio faster than real time (more than 60000 ms ahead)"],
      ["marks", "sent marks and clears faster than 100 a second (beyond 4096 at once)"],
      ["clears", "sent marks and clears faster than 100 a second (beyond 4096 at once)"],
      ["name", "sent a mark name over 1024 characters"],
    ] as const
  ) {
    const clock = new SimClock();
    const bounds: string[] = [];
    const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
    const call = new TwilioCall({
      clock,
      stream: SIDS,
      send: () => {},
      vad,
      onTurn: () => {},
      onBound: (what) => bounds.push(what),
    });
    call.begin();
    for (let i = 0; i < 10_000; i++) {
      if (flood === "media") {
        call.receive({ event: "media", streamSid: "MZ1", mulaw: new Uint8Array(160) });
      } else if (flood === "empty") {
        call.receive({ event: "media", streamSid: "MZ1", mulaw: new Uint8Array(0) });
      } else if (flood === "clears") {
        call.receive({ event: "clear", streamSid: "MZ1" });
      } else {
        const name = flood === "name" ? "x".repeat(1025) : `m${i}`;
        call.receive({ event: "mark", streamSid: "MZ1", name });
      }
    }
    assert.deepEqual(bounds, [expected], flood);
    assert.equal(call.queuedMs, 0, flood);
    call.end();
    vad.free();
  }
});

Deno.test("TwilioCall's jitter buffer: frames sent without gaps but arriving with jitter play without holes, and the turn is placed where it arrived", async () => {
  const { clock, call, turns, vad } = await setup();
  call.begin();
  await clock.advance(500);
  // 1 s of speech in 20 ms frames, each arriving up to 18 ms late (never two late in a row).
  const speech = voicedSignal(8000, 1000, 6);
  for (let k = 0; k < 50; k++) {
    const late = k % 2 === 1 ? 18 : 0;
    clock.timer(k * 20 + late, () =>
      call.receive({
        event: "media",
        streamSid: "MZ1",
        mulaw: mulawEncode(speech.subarray(k * 160, (k + 1) * 160)),
      }));
  }
  await clock.advance(2500);
  assert.equal(turns.length, 1);
  const t = turns[0]!;
  assert.equal(t.audioStartMs, 500, "placed at its first frame's arrival");
  // No zero run of 10 ms or more inside the utterance.
  let run = 0;
  let longest = 0;
  for (const v of t.samples.subarray(0, 8000)) {
    run = v === 0 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  assert.ok(longest < 80, `a zero run of ${longest} samples inside the utterance`);
  assert.equal(call.stats.underruns, 0);
  call.end();
  vad.free();
});

Deno.test("TwilioCall's jitter buffer deepens after a hole (20 to 60 ms) and the recording keeps the audio where it arrived", async () => {
  const { clock, call, turns, vad } = await setup();
  call.begin();
  await clock.advance(500);
  const speech = voicedSignal(8000, 1000, 7);
  // Frames arrive on time, but frame 10 comes 70 ms late, and the three after it with it
  // (a socket keeps their order).
  for (let k = 0; k < 50; k++) {
    clock.timer(Math.max(k * 20, k >= 10 ? 270 : 0), () =>
      call.receive({
        event: "media",
        streamSid: "MZ1",
        mulaw: mulawEncode(speech.subarray(k * 160, (k + 1) * 160)),
      }));
  }
  await clock.advance(2500);
  assert.equal(call.stats.underruns, 1, "the late frame made one hole in the playout");
  assert.ok(call.stats.jitterMs > JITTER_MIN_MS && call.stats.jitterMs <= JITTER_MAX_MS);
  const t = turns[0]!;
  assert.equal(t.audioStartMs, 500);
  // The recording: frames 0-9 at their arrival, frame 10 after them (within tolerance of
  // the gap the lateness left), and every sample of the utterance in it.
  let nonZero = 0;
  for (const v of t.samples) if (v !== 0) nonZero++;
  assert.ok(nonZero > 7500, `${nonZero} samples of speech kept`);
  call.end();
  vad.free();
});
