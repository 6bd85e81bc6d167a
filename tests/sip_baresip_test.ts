/**
 * baresip as the real peer (loopback only): callbench dials it over SIP/UDP, streams
 * the caller's audio as RTP while baresip plays a WAV back, and hangs up with a BYE.
 * What baresip recorded must hold our caller's audio, and what we heard must hold
 * baresip's. Skips with a message when baresip is not installed (CI installs it).
 */
import assert from "node:assert/strict";
import { RealClock } from "../src/clock/clock.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { decodeWav } from "../src/audio/wav.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import { RecordingLine } from "./_wire.ts";
import { baresipInstalled, startBaresip } from "./_baresip.ts";

const installed = baresipInstalled();
if (!installed) {
  console.log("sip_baresip_test: baresip is not installed (apt-get install baresip): skipped");
}

/** ms of 10 ms frames above -40 dBFS. */
function voicedMs(samples: Int16Array, rate: number): number {
  const n = rate / 100;
  let frames = 0;
  for (let at = 0; at + n <= samples.length; at += n) {
    let sum = 0;
    for (let i = at; i < at + n; i++) sum += samples[i]! * samples[i]!;
    if (10 * Math.log10(sum / n / 32768 ** 2 + 1e-12) > -40) frames++;
  }
  return frames * 10;
}

Deno.test({
  name:
    "baresip: callbench dials it, audio flows both ways, our BYE ends the call; its recording holds our caller's speech",
  ignore: !installed,
  async fn() {
    const peer = await startBaresip(voicedSignal(8000, 8000, 7));
    const line = new RecordingLine("agent", new RealClock());
    const participant = new SipParticipant({ uri: peer.uri });
    const callerMs = 2000;
    const caller = voicedSignal(8000, callerMs, 3);
    // The same measure on what we sent: how much of it is voiced by this definition.
    const sentVoicedMs = voicedMs(caller, 8000);
    try {
      const t0 = performance.now();
      await participant.start(line, {
        side: "agent",
        scenario: "baresip",
        domain: "test_counter",
        prompt: "",
        tools: [],
        seed: "1",
      });
      participant.onEvent({ type: "call_start", at: 0 } as never);
      participant.onEvent({
        type: "tone_start",
        at: 0,
        audio: { samples: caller, sampleRate: 8000, channels: 1 },
      } as never);
      await new Promise((r) => setTimeout(r, 3000));
      participant.onEvent({ type: "hangup", at: line.clock.now() } as never);
      const stats = participant.stats!;
      await participant.close();
      const callMs = performance.now() - t0;
      // baresip says the call ended (our BYE) and what it decoded from us is our speech.
      const deadline = Date.now() + 3000;
      while (!/terminated \(duration/.test(peer.log()) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(peer.log(), /Call established/);
      assert.match(peer.log(), /terminated \(duration: \d+ secs\)/);
      const { decoded } = peer.recordings();
      assert.ok(decoded, "baresip recorded what it decoded");
      const wav = decodeWav(decoded);
      assert.ok(wav.ok);
      const heardByPeer = voicedMs(wav.audio.samples, wav.audio.sampleRate);
      console.log(
        `baresip call: ${Math.round(callMs)} ms, codec ${participant.info.settings?.codec}, ` +
          `packets out ${stats.sentPackets} (${stats.sentSpeechMs} ms speech), ` +
          `packets in ${stats.receivedPackets} (${stats.receivedMs} ms), ` +
          `baresip heard ${heardByPeer} ms of voiced audio (we sent ${sentVoicedMs}), send lateness p99 ${stats.late_ms.p99} ms`,
      );
      assert.ok(
        Math.abs(heardByPeer - sentVoicedMs) <= 100,
        `baresip heard ${heardByPeer} ms voiced of the caller's ${sentVoicedMs} ms`,
      );
      // We heard baresip's WAV: packets from it, and its speech as an agent turn.
      assert.ok(stats.receivedPackets >= 100, `${stats.receivedPackets} packets from baresip`);
      assert.equal(stats.ignoredSource + stats.ignoredPayloadType + stats.malformed, 0);
      assert.ok(line.acts.some((a) => a.act === "trace" && a.entry.type === "agent_speech_start"));
      assert.ok(!line.acts.some((a) => a.act === "fail"), JSON.stringify(line.acts));
    } finally {
      await participant.close();
      await peer.stop();
    }
  },
});
