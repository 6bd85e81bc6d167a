/**
 * baresip as the real peer (loopback only): callbench dials it over SIP/UDP, streams
 * the caller's audio as RTP while baresip plays a WAV back, and hangs up with a BYE.
 * What baresip recorded must hold our caller's audio, and what we heard must hold
 * baresip's. Then the same through `eval --audio --agent sip:baresip@…` on a flow
 * scenario, which baresip ends with its own BYE. Skips with a message when baresip is not
 * installed (CI installs it).
 */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { RealClock } from "../src/clock/clock.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { decodeWav } from "../src/audio/wav.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import { RecordingLine } from "./_wire.ts";
import { baresipInstalled, startBaresip } from "./_baresip.ts";
import { cli } from "./_cli.ts";

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

Deno.test({
  name:
    "baresip through eval: eval --audio --agent sip:baresip@… completes a flow call, audio both ways, the call ended by BYE, both sides recorded",
  ignore: !installed,
  async fn() {
    // baresip answers, plays 4 s of speech-like audio while the clinic's menu plays to it,
    // and hangs up with a BYE once its file has played (the agent ending the call).
    const peer = await startBaresip(voicedSignal(8000, 4000, 5));
    const out = await Deno.makeTempDir({ prefix: "callbench-baresip-eval-" });
    try {
      const r = await cli([
        "eval",
        "--audio",
        "--agent",
        peer.uri,
        "--scenarios",
        "flow__riverside-animal-clinic__refill-by-pet-id",
        "scenarios/flows/animal_clinic.yaml",
        "--out",
        out,
      ]);
      const records = r.stdout.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l));
      assert.equal(records.length, 1, r.stderr);
      const record = records[0];
      assert.equal(record.status, "completed", JSON.stringify(record.error) + r.stderr);
      assert.equal(record.stop_reason, "agent_end", "baresip's BYE");
      assert.equal(record.participants.agent.settings.framing, "sip");
      assert.match(record.participants.agent.settings.codec, /^PCM[UA]$/);
      // What callbench heard of baresip, and what it said to it, are in the record and WAV.
      assert.ok(record.audio.sides.agent.sent_s >= 3, JSON.stringify(record.audio.sides));
      assert.ok(record.audio.sides.user.sent_s >= 2, JSON.stringify(record.audio.sides));
      assert.ok((await Deno.stat(`${out}/${record.audio.wav}`)).size > 50_000);
      // baresip saw the call set up and ended, and decoded the menu's speech.
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
      assert.ok(heardByPeer >= 1000, `baresip heard ${heardByPeer} ms of the menu`);
      console.log(
        `baresip via eval: stop ${record.stop_reason}, ${record.duration_ms ?? "?"} ms, ` +
          `codec ${record.participants.agent.settings.codec}, heard from baresip ${record.audio.sides.agent.sent_s} s, ` +
          `baresip heard ${heardByPeer} ms voiced`,
      );
    } finally {
      await peer.stop();
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "baresip: a SIP port taken between the check and its bind is retried on a fresh one (baresip has quit by the time we see why)",
  ignore: !installed,
  async fn() {
    // CI once had baresip quit on "Address already in use" before the helper signalled it,
    // and the signal to a process gone threw instead of retrying.
    const taken = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => taken.bind(0, "127.0.0.1", () => resolve()));
    const port = taken.address().port;
    try {
      const peer = await startBaresip(voicedSignal(8000, 500, 3), port);
      try {
        assert.notEqual(new URL(peer.uri.replace("sip:", "sip://")).port, String(port));
        assert.match(peer.log(), /baresip is ready/);
      } finally {
        await peer.stop();
      }
    } finally {
      taken.close();
    }
  },
});
