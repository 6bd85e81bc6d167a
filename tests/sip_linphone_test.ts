/**
 * linphone (`linphonec`, belle-sip: an implementation callbench's authors did not write)
 * as the real peer, on loopback addresses of its own. It dials `serve --sip` (the flow
 * callee) from 127.0.0.2, hears the menu, presses keys as RFC 4733 events and SIP INFO,
 * holds and resumes, and reaches the flow's goodbye (our BYE). And
 * `eval`'s SIP participant dials linphone (auto-answer, a WAV as its voice, CRLF
 * keep-alives every second): the call lives through the keep-alives, each side hears the
 * other, our BYE ends it. Skips with a message when linphone is not installed (CI
 * installs it: `.ci/run`).
 */
import assert from "node:assert/strict";
import { RealClock } from "../src/clock/clock.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { RecordingLine } from "./_wire.ts";
import { linphoneInstalled, startLinphone } from "./_linphone.ts";
import { FixedTts, REFILL, startSipServe } from "./_sip_serve.ts";

const installed = linphoneInstalled();
if (!installed) {
  console.log(
    "sip_linphone_test: linphone is not installed (apt-get install linphone-cli): skipped",
  );
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

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test({
  name:
    "linphone dials serve --sip from 127.0.0.2: RFC 4733 and SIP INFO keys, hold and resume, the flow's goodbye",
  ignore: !installed,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Each prompt is 600 ms of speech-like sound.
    const tts = new FixedTts("voiced", () => voicedSignal(8000, 600, 3));
    const logs: string[] = [];
    const keys: string[] = [];
    const { sip, ended } = await startSipServe(tts, "navigator", {
      log: (l) => logs.push(l),
      onKey: (_, key) => keys.push(key),
    });
    // linphone sends its keys one after the other, each taking its time: the next is
    // pressed once the last one was heard.
    const press = async (k: string) => {
      const n = keys.length;
      await phone.command(k);
      await until(`key ${k}`, () => keys.length > n, 10_000);
    };
    const phone = await startLinphone({ address: "127.0.0.2" });
    const said = (re: RegExp) => () => tts.asked.some((t) => re.test(t));
    try {
      await phone.command(`call sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`);
      await phone.waitFor(/Media streams established/);
      await until("the menu", () => tts.asked.length > 0);
      await new Promise((r) => setTimeout(r, 1500));
      await press("2"); // RFC 4733
      await until("the refill prompt", said(/six-digit ID/));
      await phone.command("pause");
      await phone.waitFor(/paused/i);
      await new Promise((r) => setTimeout(r, 500));
      await phone.command("resume");
      await phone.waitFor(/resumed|Media streams established[\s\S]*Media streams established/i);
      await new Promise((r) => setTimeout(r, 500));
      for (const k of "12") await press(k);
      // SIP INFO keys.
      await phone.command("param sip use_rfc2833 0");
      await phone.command("param sip use_info 1");
      for (const k of "34") await press(k);
      // RFC 4733 again (linphone sends in-band tones only when no telephone-event was
      // agreed, and it always offers one: the served side's in-band keys are tested
      // with a caller of our own, tests/serve_sip_interop_test.ts).
      await phone.command("param sip use_info 0");
      await phone.command("param sip use_rfc2833 1");
      await new Promise((r) => setTimeout(r, 500));
      for (const k of "56#") await press(k);
      await until("the goodbye", said(/refill request has been received/), 15_000).catch((e) => {
        throw new Error(
          `${e.message}; asked ${JSON.stringify(tts.asked)}; serve: ${logs.join("\n")}; log:\n${
            phone.log().slice(-3000)
          }`,
        );
      });
      await phone.waitFor(/ended/, 15_000);
      await until("the call's end", () => ended.length === 1);
      const call = ended[0]!;
      assert.equal(call.ended_by, "callbench");
      assert.equal(call.held, true);
      assert.equal(call.keys, 8, `keys heard: ${call.keys}`);
      assert.equal(keys.join(""), "212345" + "6#");
      assert.deepEqual(call.keysBy, { rfc4733: 6, info: 2, inband: 0 });
      const heard = phone.recording();
      assert.ok(heard, "linphone recorded the call");
      const voiced = voicedMs(heard.samples, heard.sampleRate);
      // Four prompts of 600 ms at least (menu, ID prompt, its repeats, goodbye).
      assert.ok(voiced >= 1500, `linphone heard ${voiced} ms of the prompts`);
    } finally {
      await phone.stop();
      await sip.close();
    }
  },
});

const silentTts: TtsProvider = {
  info: { provider: "silent", sampleRate: 8000 },
  synthesize: (): Promise<TtsResult> =>
    Promise.resolve({ ok: true, audio: pcm16(new Int16Array(800), 8000) }),
  close: () => Promise.resolve(),
};

Deno.test({
  name:
    "eval dials linphone at 127.0.0.3 (auto-answer, CRLF keep-alives every second): the call lives through them, both hear each other, our BYE ends it",
  ignore: !installed,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const phone = await startLinphone({
      address: "127.0.0.3",
      autoAnswer: true,
      keepAliveMs: 1000,
      source: voicedSignal(8000, 4000, 9),
    });
    const line = new RecordingLine("agent", new RealClock());
    const p = new SipParticipant({ uri: phone.uri, speech: { tts: silentTts } });
    try {
      await p.start(line, {
        side: "agent",
        scenario: "linphone",
        domain: "test_counter",
        prompt: "",
        tools: [],
        seed: "1",
      });
      p.onEvent({ type: "call_start", at: 0 } as never);
      p.onEvent({
        type: "tone_start",
        at: 0,
        audio: { samples: voicedSignal(8000, 2000, 4), sampleRate: 8000, channels: 1 },
      } as never);
      await new Promise((r) => setTimeout(r, 4500));
      assert.deepEqual(line.acts.filter((a) => a.act === "fail"), []);
      p.onEvent({ type: "hangup", at: line.clock.now() } as never);
      const stats = p.stats!;
      await p.close();
      await phone.waitFor(/ended/, 5000);
      assert.ok(stats.receivedPackets > 100, `${stats.receivedPackets} packets from linphone`);
      assert.ok(
        line.acts.some((a) =>
          a.act === "trace" && (a.entry as { type?: string }).type === "agent_speech_start"
        ) ||
          line.acts.some((a) => a.act === "say"),
        "linphone's voice was heard as a turn",
      );
      const heard = phone.recording();
      assert.ok(heard, "linphone recorded the call");
      const voiced = voicedMs(heard.samples, heard.sampleRate);
      assert.ok(voiced >= 1000, `linphone heard ${voiced} ms of our caller`);
    } finally {
      await p.close();
      await phone.stop();
    }
  },
});
