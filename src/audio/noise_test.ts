import assert from "node:assert/strict";
import { meanPower, sine } from "./pcm.ts";
import { mixAtSnr, whiteNoise } from "./noise.ts";

function snrOf(clean: Int16Array, mixed: Int16Array): number {
  const diff = mixed.map((x, i) => x - clean[i]!);
  return 10 * Math.log10(meanPower(clean) / meanPower(diff));
}

Deno.test("mixAtSnr() adds white noise at the SNR asked for, within 0.2 dB", () => {
  const clean = sine(16000, 440, 2000, 8000);
  for (const snr of [0, 10, 15, 20, 40]) {
    const got = snrOf(clean, mixAtSnr(clean, snr, { seed: 3 }));
    assert.ok(Math.abs(got - snr) < 0.2, `${snr} dB asked, ${got.toFixed(2)} dB got`);
  }
});

Deno.test("mixAtSnr() is reproducible from its seed and differs between seeds", () => {
  const clean = sine(8000, 300, 500);
  assert.deepEqual(mixAtSnr(clean, 10, { seed: 9 }), mixAtSnr(clean, 10, { seed: 9 }));
  assert.notDeepEqual(mixAtSnr(clean, 10, { seed: 9 }), mixAtSnr(clean, 10, { seed: 10 }));
});

Deno.test("mixAtSnr() scales and loops a given noise recording", () => {
  const clean = sine(16000, 440, 1000, 8000);
  const hum = sine(16000, 50, 100, 1000);
  const got = snrOf(clean, mixAtSnr(clean, 6, { noise: hum }));
  assert.ok(Math.abs(got - 6) < 0.3, `${got}`);
});

Deno.test("mixAtSnr() can refer the SNR to a given speech power", () => {
  const clean = new Int16Array(16000);
  const mixed = mixAtSnr(clean, 20, { signalPower: 1000 * 1000, seed: 1 });
  const level = 10 * Math.log10(1000 * 1000 / meanPower(mixed));
  assert.ok(Math.abs(level - 20) < 0.2, `${level}`);
});

Deno.test("whiteNoise() has the RMS asked for and a flat mean", () => {
  const n = whiteNoise(100_000, 1000, 5);
  assert.ok(Math.abs(Math.sqrt(meanPower(n)) - 1000) < 10);
  const mean = n.reduce((a, b) => a + b, 0) / n.length;
  assert.ok(Math.abs(mean) < 10);
});
