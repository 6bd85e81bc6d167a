/**
 * The dialling side (`eval --agent sip:…`) among real phones and proxies, against a
 * scripted agent (`./_sip_uas.ts`) over real sockets: CRLF keep-alives are answered and
 * end nothing, our answers honour `rport`, a 200 OK's Record-Route routes the ACK and
 * BYE, the agent's hold re-INVITE is answered (no 501) and traced, SIP INFO keys are
 * heard and `dtmf: "info"` sends them, a third party's SIP or RTP is never the agent's
 * fault, a key flood is `protocol_error` naming its bound, and a restarted RTP stream is
 * heard. And on a clock of the test's own: an address with no listener is
 * `agent_unreachable` at 32 s, the silence clock not running before the answer.
 */
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup, Clock } from "../src/bridge/call.ts";
import { RealClock, SimClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { mulawEncode } from "../src/audio/mulaw.ts";
import { buildTelephoneEvent } from "../src/protocol/rtp.ts";
import { SipParticipant, type SipParticipantOptions } from "../src/transport/sip.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { RecordingLine } from "./_wire.ts";
import { SipUas, type SipUasOptions } from "./_sip_uas.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "sip__interop",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "1",
};

const silentTts: TtsProvider = {
  info: { provider: "silent", sampleRate: 8000 },
  synthesize: (): Promise<TtsResult> =>
    Promise.resolve({ ok: true, audio: pcm16(new Int16Array(800), 8000) }),
  close: () => Promise.resolve(),
};

async function until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Dials a scripted agent and starts the call; `fn` runs the test, then all is closed. */
async function dialled(
  fn: (c: { uas: SipUas; line: RecordingLine; p: SipParticipant }) => Promise<void>,
  uasOptions: SipUasOptions = {},
  options: Partial<SipParticipantOptions> = {},
  uri?: (uas: SipUas) => string,
): Promise<void> {
  const uas = await SipUas.start(uasOptions);
  const line = new RecordingLine("agent", new RealClock());
  const p = new SipParticipant({
    uri: uri?.(uas) ?? uas.uri,
    speech: { tts: silentTts },
    ...options,
  });
  try {
    await p.start(line, SETUP);
    p.onEvent({ type: "call_start", at: 0 } as never);
    await fn({ uas, line, p });
    const failed = line.acts.find((a) => a.act === "fail");
    if (failed && !("expectFail" in p)) {
      throw new Error(`the call failed: ${JSON.stringify(failed)}`);
    }
  } finally {
    await p.close();
    uas.close();
  }
}

const traces = (line: RecordingLine, type: string) =>
  line.acts.flatMap((a) =>
    a.act === "trace" && (a.entry as { type?: string }).type === type ? [a.entry] : []
  );

Deno.test("eval over SIP: a CRLF keep-alive ping gets a pong and ends nothing", async () => {
  await dialled(async ({ uas, line }) => {
    await uas.next(/^ACK /);
    uas.sendSip("\r\n\r\n");
    await uas.next(/^\r\n$/);
    uas.sendSip("\r\n");
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(line.acts.some((a) => a.act === "fail"), false);
  });
});

Deno.test("eval over SIP: our answer to the agent's request goes where it came from, with received and rport", async () => {
  await dialled(async ({ uas }) => {
    await uas.next(/^ACK /);
    const options = uas.request("OPTIONS").replace(
      /\r\nVia: SIP\/2\.0\/UDP [^;]+;/,
      "\r\nVia: SIP/2.0/UDP 192.0.2.2:5062;rport;",
    );
    uas.sendSip(options);
    const ok = await uas.next(/^SIP\/2\.0 200 OK\r\n[\s\S]*CSeq: \d+ OPTIONS/);
    assert.match(
      ok.text,
      new RegExp(
        `\r\nVia: SIP/2\\.0/UDP 192\\.0\\.2\\.2:5062;branch=[^;\r\n]+;received=127\\.0\\.0\\.1;rport=${uas.sip.address().port}\r\n`,
      ),
    );
  });
});

Deno.test("eval over SIP: behind a proxy that records the route, ACK and BYE go to it with Route, not to the agent's Contact", async () => {
  // The agent sits on another loopback address, behind the "proxy" (this UAS's socket).
  const agent = createSocket("udp4");
  await new Promise<void>((r) => agent.bind(0, "127.0.0.2", () => r()));
  const toAgent: string[] = [];
  agent.on("message", (d) => toAgent.push(new TextDecoder().decode(d)));
  try {
    await dialled(async ({ uas, p }) => {
      const ack = await uas.next(/^ACK /);
      const proxy = `sip:127.0.0.1:${uas.sip.address().port};lr`;
      assert.match(ack.text, /^ACK sip:agent@127\.0\.0\.2:\d+ SIP\/2\.0\r\n/);
      assert.match(
        ack.text,
        new RegExp(`\r\nRoute: <${proxy}>\r\nRoute: <sip:127\\.0\\.0\\.9:5070;lr>\r\n`),
      );
      p.onEvent({ type: "hangup", at: 0 } as never);
      const bye = await uas.next(/^BYE /);
      assert.match(bye.text, new RegExp(`\r\nRoute: <${proxy}>\r\n`));
      assert.deepEqual(toAgent, [], "nothing goes around the proxy");
    }, {
      // Record-Route as two proxies put it: each adds itself on top, so the one nearest
      // the caller comes last, and the caller's route set (reversed) starts with it.
      okHeaders: (uas) => [
        ["Record-Route", "<sip:127.0.0.9:5070;lr>"],
        ["Record-Route", `<sip:127.0.0.1:${uas.sip.address().port};lr>`],
      ],
      contact: `<sip:agent@127.0.0.2:${agent.address().port}>`,
    });
  } finally {
    agent.close();
  }
});

Deno.test("eval over SIP: the agent's hold re-INVITE is answered recvonly, our audio stops, the hold is traced; resume brings it back", async () => {
  await dialled(async ({ uas, line }) => {
    await uas.next(/^ACK /);
    await until("our RTP", () => uas.rtpIn.length > 10);
    uas.sendSip(
      uas.request("INVITE", [["Content-Type", "application/sdp"]], uas.sdp("sendonly", 2)),
    );
    const held = await uas.next(/^SIP\/2\.0 200 [\s\S]*a=recvonly/);
    assert.doesNotMatch(held.text, /^SIP\/2\.0 501/);
    await new Promise((r) => setTimeout(r, 100));
    const during = uas.rtpIn.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(uas.rtpIn.length - during <= 1, `${uas.rtpIn.length - during} packets while held`);
    assert.deepEqual(traces(line, "sip_hold").map((t) => t.held), [true]);
    uas.sendSip(
      uas.request("INVITE", [["Content-Type", "application/sdp"]], uas.sdp("sendrecv", 3)),
    );
    await uas.next(/^SIP\/2\.0 200 [\s\S]*CSeq: 102 INVITE[\s\S]*a=sendrecv/);
    const resumed = uas.rtpIn.length;
    await until("our RTP after the resume", () => uas.rtpIn.length > resumed + 10);
    assert.deepEqual(traces(line, "sip_hold").map((t) => t.held), [true, false]);
  });
});

Deno.test("eval over SIP: SIP INFO keys (dtmf-relay, dtmf) are the agent's keys; with dtmf info ours go as INFO", async () => {
  await dialled(
    async ({ uas, line, p }) => {
      await uas.next(/^ACK /);
      uas.sendSip(
        uas.request(
          "INFO",
          [["Content-Type", "application/dtmf-relay"]],
          "Signal=5\r\nDuration=160\r\n",
        ),
      );
      uas.sendSip(uas.request("INFO", [["Content-Type", "application/dtmf"]], "#"));
      await until("the keys", () => line.acts.filter((a) => a.act === "press").length === 2);
      assert.deepEqual(
        line.acts.flatMap((a) => a.act === "press" ? [a.keys] : []),
        ["5", "#"],
      );
      p.onEvent({ type: "dtmf", at: 0, keys: "12" } as never);
      await uas.next(/^INFO [\s\S]*Signal=2/, 5000);
      const infos = uas.got.filter((g) => g.text.startsWith("INFO "));
      assert.equal(infos.length, 2);
      assert.match(
        infos[0]!.text,
        /\r\nContent-Type: application\/dtmf-relay\r\n[\s\S]*\r\n\r\nSignal=1\r\n/,
      );
    },
    { okHeaders: () => [["Allow", "INVITE, ACK, BYE, INFO"]] },
    { dtmf: "info" },
  );
});

Deno.test("eval over SIP: a third party's junk SIP and RTP are counted, traced and never the agent's fault", async () => {
  await dialled(async ({ uas, line }) => {
    await uas.next(/^ACK /);
    const rogue = createSocket("udp4");
    await new Promise<void>((r) => rogue.bind(0, "127.0.0.2", () => r()));
    const local = createSocket("udp4");
    await new Promise<void>((r) => local.bind(0, "127.0.0.1", () => r()));
    try {
      uas.sendSip(new Uint8Array([0xde, 0xad, 0xbe, 0xef]), rogue);
      for (let i = 0; i < 700; i++) {
        uas.sendRtp(0, new Uint8Array(160).fill(0xff), { from: local, seq: i });
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 5));
      }
      await until("the RTP trace", () => traces(line, "sip_foreign").some((t) => t.wire === "rtp"));
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(line.acts.some((a) => a.act === "fail"), false);
      assert.ok(traces(line, "sip_foreign").some((t) => t.wire === "sip"));
    } finally {
      rogue.close();
      local.close();
    }
  });
});

Deno.test("eval over SIP: an RFC 4733 key flood is protocol_error naming the bound, within a second", async () => {
  const p0 = { expectFail: true };
  await dialled(async ({ uas, line, p }) => {
    Object.assign(p, p0);
    await uas.next(/^ACK /);
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) {
      uas.sendRtp(
        101,
        buildTelephoneEvent({ event: i % 10, end: false, volume: 10, duration: 160 }),
        {
          ts: i * 800,
          marker: true,
        },
      );
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 2));
      if (line.acts.some((a) => a.act === "fail")) break;
    }
    await until("the failure", () => line.acts.some((a) => a.act === "fail"));
    const fail = line.acts.find((a) => a.act === "fail") as { kind: string; message: string };
    assert.equal(fail.kind, "protocol_error");
    assert.match(fail.message, /pressed keys faster than 10 a second/);
    assert.ok(performance.now() - t0 < 1000);
    assert.ok(line.acts.filter((a) => a.act === "press").length <= 41);
  });
});

Deno.test("eval over SIP: a restarted RTP stream (new SSRC, sequence far lower) is still the agent's audio", async () => {
  await dialled(async ({ uas, p }) => {
    await uas.next(/^ACK /);
    const speech = mulawEncode(voicedSignal(8000, 400, 5));
    const send = async (ssrc: number, seq0: number) => {
      for (let i = 0; i < 20; i++) {
        uas.sendRtp(0, speech.subarray(i * 160, (i + 1) * 160), { ssrc, seq: seq0 + i });
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await send(0xaaaa, 50000);
    await send(0xbbbb, 7);
    await new Promise((r) => setTimeout(r, 200));
    const stats = p.stats!;
    assert.equal(stats.restarts, 1);
    assert.ok(stats.receivedPackets >= 38, `${stats.receivedPackets} of 40 taken`);
    assert.ok(stats.tooLate <= 2, `${stats.tooLate} too late`);
  });
});

/** A clock the test moves by hand, that says it is real (the bridge waits for nothing). */
class HandClock implements Clock {
  readonly simulated = false;
  readonly #sim = new SimClock();
  now() {
    return this.#sim.now();
  }
  timer(ms: number, fn: () => void) {
    return this.#sim.timer(ms, fn);
  }
  sleep(ms: number) {
    return new Promise<void>((r) => this.#sim.timer(ms, r));
  }
  advance(ms: number) {
    return this.#sim.advance(ms);
  }
}

Deno.test("eval over SIP: an address with no listener is agent_unreachable at 32 s, not agent_silent at 30 s (a hand-moved clock)", async () => {
  const dead = createSocket("udp4");
  await new Promise<void>((r) => dead.bind(0, "127.0.0.1", () => r()));
  const clock = new HandClock();
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  try {
    let done = false;
    const run = runCall({
      env,
      agent: new SipParticipant({
        uri: `sip:agent@127.0.0.1:${dead.address().port}`,
        speech: { tts: silentTts },
      }),
      user: new ScriptedUser({}),
      agentSetup: SETUP,
      userSetup: { ...SETUP, side: "user" },
      clock,
      limits: DEFAULT_LIMITS,
      firstSpeaker: "agent",
      timedSpeech: false,
    }).finally(() => (done = true));
    // The clock moves once the first INVITE went out (the sockets and the RTP Worker start
    // on the real clock first, which takes a while on a loaded machine).
    let invites = 0;
    dead.on("message", () => invites++);
    for (let i = 0; i < 500 && invites === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(invites > 0, "the INVITE went out");
    for (let t = 0; t < 40_000 && !done; t += 250) {
      await clock.advance(250);
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.ok(done, "the call ended by 40 s");
    const out = await run;
    assert.equal(out.error?.kind, "agent_unreachable", out.error?.message);
    assert.ok(out.durationMs! >= 32_000 && out.durationMs! < 32_500, `${out.durationMs} ms`);
    assert.match(out.error!.message, /did not answer the INVITE in 32 s/);
  } finally {
    dead.close();
  }
});
