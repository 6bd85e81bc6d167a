/**
 * `serve --sip`: baresip, a real SIP phone, dials callbench on loopback. The flow callee
 * answers and speaks first; baresip records what it heard from us and we hear what it
 * plays (a WAV); baresip hangs up with a BYE when its WAV ends, and the server takes a
 * second call. In-process with a TTS of known output (a 1 kHz tone per utterance), so
 * what baresip recorded is checked against exactly what was sent; then as a process
 * (`deno task serve`'s permissions, flite speech). Skipped where baresip is not installed.
 */
import assert from "node:assert/strict";
import { baresipInstalled, runBaresip } from "./_baresip.ts";
import { spawnServe } from "./_serve_process.ts";
import { CLINIC_FLOW, FixedTts, REFILL, startSipServe } from "./_sip_serve.ts";
import { taskFlags } from "./_tasks.ts";

const installed = baresipInstalled();
if (!installed) {
  console.error("serve_sip_test: baresip is not installed (apt-get install baresip): skipped");
}

/** Each utterance is 800 ms of a 1 kHz tone at 8 kHz. */
const UTTERANCE_MS = 800;

function tone(hz: number, ms: number, rate: number, amplitude = 8000): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  for (let i = 0; i < out.length; i++) {
    out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  }
  return out;
}

/** Milliseconds of 10 ms frames louder than -40 dBFS. */
function voicedMs(samples: Int16Array, rate: number): number {
  const frame = rate / 100;
  let voiced = 0;
  for (let at = 0; at + frame <= samples.length; at += frame) {
    let sum = 0;
    for (let i = at; i < at + frame; i++) sum += samples[i]! * samples[i]!;
    const rms = Math.sqrt(sum / frame);
    if (20 * Math.log10(rms / 32768 + 1e-12) > -40) voiced += 10;
  }
  return voiced;
}

/** Share of the signal's power at `hz` (Goertzel from its first to its last loud sample). */
function powerShareAt(all: Int16Array, rate: number, hz: number): number {
  const first = all.findIndex((x) => Math.abs(x) > 1000);
  const last = all.findLastIndex((x) => Math.abs(x) > 1000);
  if (first < 0) return 0;
  const samples = all.subarray(first, last + 1);
  const k = (2 * Math.PI * hz) / rate;
  let s1 = 0, s2 = 0, total = 0;
  for (const x of samples) {
    const s0 = x + 2 * Math.cos(k) * s1 - s2;
    s2 = s1;
    s1 = s0;
    total += x * x;
  }
  const power = s1 * s1 + s2 * s2 - 2 * Math.cos(k) * s1 * s2;
  return total === 0 ? 0 : (2 * power) / (samples.length * total);
}

Deno.test({
  name:
    "serve --sip: baresip dials the flow callee, hears exactly its speech, is heard, hangs up with BYE; a second call works",
  ignore: !installed,
  async fn() {
    const tts = new FixedTts("tone", () => tone(1000, UTTERANCE_MS, 8000));
    const lines: string[] = [];
    const heardByUs: number[] = [];
    const { sip } = await startSipServe(tts, "navigator", {
      log: (line) => lines.push(line),
      onCallEnded: (summary) => heardByUs.push(summary.voicedMsHeard),
    });
    try {
      for (const round of [1, 2]) {
        // baresip plays 3 s of 440 Hz, then its WAV ends and it hangs up.
        const run = await runBaresip({
          dial: `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`,
          source: tone(440, 3000, 8000),
          seconds: 8,
        });
        assert.match(run.log, /Call established/, run.log);
        assert.ok(run.heard, `round ${round}: baresip recorded what it heard\n${run.log}`);
        // The flow's first prompt: one utterance of our 1 kHz tone, nothing else.
        const heard = voicedMs(run.heard.samples, 8000);
        assert.ok(
          Math.abs(heard - UTTERANCE_MS) <= 60,
          `round ${round}: baresip heard ${heard} ms of speech, we sent ${UTTERANCE_MS}`,
        );
        assert.ok(powerShareAt(run.heard.samples, 8000, 1000) > 0.8, "it is our 1 kHz tone");
        // Its BYE ended the call on our side, and we had heard its 3 s of tone.
        for (let i = 0; i < 200 && heardByUs.length < round; i++) {
          await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal(heardByUs.length, round, lines.join("\n"));
        // What baresip sent, by its own recording of its encoder's input.
        assert.ok(run.sent, "baresip recorded what it sent");
        const sent = voicedMs(run.sent.samples, 8000);
        assert.ok(sent >= 2500, `baresip sent ${sent} ms of its 3000 ms WAV`);
        assert.ok(
          Math.abs(heardByUs[round - 1]! - sent) <= 100,
          `we heard ${heardByUs[round - 1]} ms of the ${sent} ms baresip sent`,
        );
        console.log(
          `round ${round}: baresip heard ${heard} ms of our ${UTTERANCE_MS} ms; ` +
            `we heard ${heardByUs[round - 1]} ms of its ${sent} ms`,
        );
        assert.match(lines.join("\n"), /the far end sent BYE/);
        assert.equal(sip.calls, 0);
      }
      assert.match(tts.asked[0] ?? "", /Riverside Animal Clinic/);
    } finally {
      await sip.close();
    }
  },
});

Deno.test({
  name: "deno task serve --sip: a baresip call to the flow callee is answered with flite speech",
  ignore: !installed,
  async fn() {
    const { child, url, seen } = await spawnServe([
      "run",
      ...taskFlags("serve"),
      "cli.ts",
      "serve",
      "--port",
      "0",
      "--sip",
      "0",
      CLINIC_FLOW,
    ]);
    try {
      assert.ok(url, seen);
      const sipUri = /answering SIP calls at sip:callbench@127\.0\.0\.1:(\d+)/.exec(seen);
      assert.ok(sipUri, seen);
      const run = await runBaresip({
        dial: `sip:flow@127.0.0.1:${sipUri[1]};scenario=${REFILL}`,
        source: tone(440, 4000, 8000),
        seconds: 9,
      });
      assert.match(run.log, /Call established/, run.log);
      assert.ok(run.heard);
      // "Thank you for calling Riverside Animal Clinic. For appointments, press 1. ..."
      const heard = voicedMs(run.heard.samples, 8000);
      assert.ok(heard > 1500, `baresip heard ${heard} ms of the menu`);
    } finally {
      child.kill("SIGTERM");
      assert.equal((await child.status).code, 0);
    }
  },
});
