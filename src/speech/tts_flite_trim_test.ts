import assert from "node:assert/strict";
import { speechSpan } from "../audio/energy.ts";
import { FliteTts } from "./tts_flite.ts";

Deno.test("flite's utterances are trimmed: they start and end with speech (no 150-290 ms tail)", async () => {
  const tts = new FliteTts({ voice: "slt" });
  try {
    for (const text of ["Please add five to the counter.", "Yes.", "Your code is A B C."]) {
      const r = await tts.synthesize({ text });
      assert.ok(r.ok);
      const { samples, sampleRate } = r.audio;
      const span = speechSpan(samples, sampleRate)!;
      assert.equal(span.startMs, 0, text);
      assert.equal(span.endMs, (samples.length * 1000) / sampleRate, text);
    }
  } finally {
    await tts.close();
  }
});
