import assert from "node:assert/strict";
import {
  AUDIO_SAMPLE_RATES,
  type AudioResult,
  checkPcm,
  decodeBase64,
  encodeBase64,
  MAX_AUDIO_PAYLOAD_BYTES,
} from "./audio_payload.ts";

const codeOf = (r: AudioResult<unknown>) => (r.ok ? undefined : r.problem.code);

Deno.test("checkPcm accepts whole PCM16 sample frames at every listed rate, mono or stereo", () => {
  for (const rate of AUDIO_SAMPLE_RATES) {
    assert.ok(checkPcm(new Uint8Array(4), rate, 1).ok);
    assert.ok(checkPcm(new Uint8Array(4), rate, 2).ok);
  }
  assert.ok(checkPcm(new Uint8Array(MAX_AUDIO_PAYLOAD_BYTES), 48000, 2).ok);
});

Deno.test("checkPcm names each refusal with its code", () => {
  assert.equal(codeOf(checkPcm(new Uint8Array(3), 16000, 1)), "odd_length");
  assert.equal(codeOf(checkPcm(new Uint8Array(6), 16000, 2)), "odd_length");
  assert.equal(codeOf(checkPcm(new Uint8Array(2), 0, 1)), "bad_sample_rate");
  assert.equal(codeOf(checkPcm(new Uint8Array(2), 16000.5, 1)), "bad_sample_rate");
  assert.equal(codeOf(checkPcm(new Uint8Array(2), 16000, 1.5)), "bad_channels");
  assert.equal(codeOf(checkPcm(new Uint8Array(2), 16000, 3)), "bad_channels");
  assert.equal(
    codeOf(checkPcm(new Uint8Array(MAX_AUDIO_PAYLOAD_BYTES + 2), 16000, 1)),
    "oversized",
  );
});

Deno.test("decodeBase64 takes padded standard base64 only, and refuses long text before decoding", () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(decodeBase64(encodeBase64(bytes)), { ok: true, value: bytes });
  // Whitespace, which the decoder itself would skip (the last three decode without error).
  const spaced = ["AA\nAA==", "AAAA AAA", "AA\tA", "\r\n\r\n", "AAAA    ", "    AAAA"];
  for (const bad of ["AAA", "AA==A", "A===", "-_-_", "AAF=", "AA=A", ...spaced]) {
    assert.equal(codeOf(decodeBase64(bad)), "bad_base64", bad);
  }
  assert.equal(codeOf(decodeBase64("AAAAAAAA", 5)), "oversized");
  assert.equal(decodeBase64("AAAAAA==", 4).ok, true);
});
