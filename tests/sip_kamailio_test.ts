/**
 * Kamailio as the proxy a real deployment puts in front of a phone agent, with
 * Record-Route, and linphone as the phone, each on its own loopback address: the
 * dialog's requests must follow the route set (RFC 3261 §12.1, §16) through the proxy,
 * which answers a request outside any route `404 Not here`.
 *
 * - linphone (127.0.0.2) dials `serve --sip` through Kamailio: the 200 OK copies the
 *   Record-Route, linphone's ACK and keys go through the proxy, and serve's BYE at the
 *   flow's goodbye goes through it too (with Route) and reaches linphone.
 * - `eval`'s SIP participant dials linphone (127.0.0.3) through Kamailio: our ACK and
 *   BYE go through the proxy with Route, and linphone sees the call end.
 *
 * Skips with a message when linphone or Kamailio is not installed (CI installs both).
 */
import assert from "node:assert/strict";
import { RealClock } from "../src/clock/clock.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { RecordingLine } from "./_wire.ts";
import { linphoneInstalled, startLinphone } from "./_linphone.ts";
import { kamailioInstalled, startKamailio } from "./_kamailio.ts";
import { FixedTts, REFILL, startSipServe } from "./_sip_serve.ts";

const installed = linphoneInstalled() && kamailioInstalled();
if (!installed) {
  console.log(
    "sip_kamailio_test: linphone or kamailio is not installed (apt-get install linphone-cli kamailio): skipped",
  );
}

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The requests Kamailio handled, as `METHOD from HOST:PORT`. */
function handled(log: string): string[] {
  return [...log.matchAll(/kam: (\w+) \S+ from (\S+)/g)].map((m) => `${m[1]} from ${m[2]}`);
}

Deno.test({
  name:
    "linphone (127.0.0.2) dials serve --sip through Kamailio with Record-Route: the keys route the flow, serve's BYE goes through the proxy and reaches linphone",
  ignore: !installed,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tts = new FixedTts("voiced", () => voicedSignal(8000, 600, 3));
    const keys: string[] = [];
    const { sip, ended } = await startSipServe(tts, "navigator", {
      onKey: (_, key) => keys.push(key),
    });
    const proxy = await startKamailio(`sip:127.0.0.1:${sip.port}`);
    const phone = await startLinphone({ address: "127.0.0.2" });
    try {
      await phone.command(`call sip:flow@${proxy.hostPort};scenario=${REFILL}`);
      await phone.waitFor(/Media streams established/);
      await until("the menu", () => tts.asked.length > 0);
      await new Promise((r) => setTimeout(r, 1500));
      for (const k of "2123456#") {
        const n = keys.length;
        await phone.command(k);
        await until(`key ${k}`, () => keys.length > n);
      }
      await until(
        "the goodbye",
        () => tts.asked.some((t) => /refill request has been received/.test(t)),
        15_000,
      );
      // Serve's BYE went through the proxy (its route), which relayed it to linphone.
      await phone.waitFor(/ended/, 15_000);
      await until("the call's end", () => ended.length === 1);
      assert.equal(ended[0]!.ended_by, "callbench");
      const through = handled(proxy.log());
      assert.ok(through.includes(`BYE from 127.0.0.1:${sip.port}`), through.join("\n"));
      // linphone's ACK followed the Record-Route the 200 OK carried.
      assert.ok(through.some((t) => /^ACK from 127\.0\.0\.2:/.test(t)), through.join("\n"));
      assert.doesNotMatch(proxy.log(), /reply 404 Not here/);
      assert.equal(keys.join(""), "2123456#");
    } finally {
      await phone.stop();
      await proxy.stop();
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
    "eval dials linphone (127.0.0.3) through Kamailio with Record-Route: our ACK and BYE go through the proxy with Route; linphone sees the call end",
  ignore: !installed,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const phone = await startLinphone({
      address: "127.0.0.3",
      autoAnswer: true,
      source: voicedSignal(8000, 3000, 9),
    });
    const proxy = await startKamailio(`sip:${phone.address}:${phone.port}`);
    const line = new RecordingLine("agent", new RealClock());
    const p = new SipParticipant({
      uri: `sip:linphone@${proxy.hostPort}`,
      speech: { tts: silentTts },
    });
    try {
      await p.start(line, {
        side: "agent",
        scenario: "kamailio",
        domain: "test_counter",
        prompt: "",
        tools: [],
        seed: "1",
      });
      p.onEvent({ type: "call_start", at: 0 } as never);
      await new Promise((r) => setTimeout(r, 2500));
      p.onEvent({ type: "hangup", at: line.clock.now() } as never);
      const stats = p.stats!;
      await p.close();
      await phone.waitFor(/ended/, 8000);
      assert.deepEqual(line.acts.filter((a) => a.act === "fail"), []);
      assert.ok(stats.receivedPackets > 50, `${stats.receivedPackets} packets from linphone`);
      const through = handled(proxy.log());
      assert.ok(through.some((t) => /^ACK from 127\.0\.0\.1:/.test(t)), through.join("\n"));
      assert.ok(through.some((t) => /^BYE from 127\.0\.0\.1:/.test(t)), through.join("\n"));
      assert.doesNotMatch(proxy.log(), /reply 404 Not here/);
    } finally {
      await p.close();
      await phone.stop();
      await proxy.stop();
    }
  },
});
