import assert from "node:assert/strict";
import { speechFromFlags } from "../cli/speech_flags.ts";
import { speechConfig } from "../speech/speech_options.ts";
import { InputError } from "../cli/problem.ts";

const io = { env: (k: string) => (k === "OPENAI_BASE_URL" ? "http://127.0.0.1:1/v1" : undefined) };

Deno.test("eval --audio flags: defaults, voices and providers shape the config; bad values are input errors", () => {
  assert.equal(speechFromFlags({}, io), undefined);
  const d = speechFromFlags({ audio: true }, io)!;
  assert.deepEqual(speechConfig(d), {
    tts: { provider: "flite" },
    voices: { agent: "rms", user: "slt" },
    stt: { provider: "transcript" },
    dtmf: "inband",
    barge_in: 0,
    sample_rate: 16000,
  });
  const o = speechFromFlags({
    audio: true,
    tts: "openai",
    "tts-model": "m",
    "agent-voice": "alloy",
    stt: "openai",
    dtmf: "event",
    "barge-in": "0.25",
  }, io)!;
  assert.deepEqual(speechConfig(o).tts, {
    provider: "openai",
    model: "m",
    base_url: "http://127.0.0.1:1/v1",
  });
  assert.equal(o.voices.agent, "alloy");
  assert.notDeepEqual(speechConfig(o), speechConfig(d));
  // JSON round trip: the options travel to a Worker as they are.
  assert.deepEqual(JSON.parse(JSON.stringify(o)), o);
  for (
    const bad of [
      { tts: "flite" },
      { audio: true, tts: "espeak-ng" },
      { audio: true, "agent-voice": "nobody" },
      { audio: true, dtmf: "both" },
      { audio: true, "barge-in": "2" },
    ]
  ) {
    assert.throws(() => speechFromFlags(bad, io), InputError, JSON.stringify(bad));
  }
  assert.throws(
    () => speechFromFlags({ audio: true, tts: "openai" }, { env: () => undefined }),
    InputError,
  );
});

Deno.test("eval --hints transcript: in the config (and so the config hash), needs --audio, one value", () => {
  const plain = speechFromFlags({ audio: true }, io)!;
  const hinted = speechFromFlags({ audio: true, hints: "transcript" }, io)!;
  assert.deepEqual(hinted.hints, ["transcript"]);
  assert.deepEqual(speechConfig(hinted), { ...speechConfig(plain), hints: ["transcript"] });
  assert.throws(() => speechFromFlags({ hints: "transcript" }, io), InputError);
  assert.throws(() => speechFromFlags({ audio: true, hints: "words" }, io), InputError);
});

Deno.test("eval --line: a preset or composition, canonical in the config; bad lines and --line without --audio are input errors", () => {
  const o = speechFromFlags({ audio: true, line: "loss@3%+phone+street@10" }, io)!;
  assert.deepEqual(o.line, {
    preset: "loss@3%+phone+street@10",
    text: "street@10+phone+loss@0.03/2/silence",
    both: false,
  });
  assert.equal(speechConfig(o).line, "street@10+phone+loss@0.03/2/silence");
  const both = speechFromFlags({ audio: true, line: "phone", "line-both": true }, io)!;
  assert.equal(speechConfig(both).line_both, true);
  // A clean line given sets the caller's level: a configuration of its own; none given, none.
  assert.equal(speechConfig(speechFromFlags({ audio: true, line: "clean" }, io)!).line, "clean");
  assert.equal(speechConfig(speechFromFlags({ audio: true }, io)!).line, undefined);
  for (const bad of [{ audio: true, line: "hiss" }, { line: "phone" }, { "line-both": true }]) {
    assert.throws(() => speechFromFlags(bad, io), InputError, JSON.stringify(bad));
  }
});
