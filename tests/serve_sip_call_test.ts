/**
 * `serve --sip` against a SIP caller of our own (tests/_sip_uac.ts) over real sockets:
 * RFC 4733 keys lead the flow callee through its menu to its hangup (our BYE); RTP
 * goes out every 20 ms from the answer on; RTP from another port or of a payload type not
 * negotiated is dropped and counted; with a tools server the 200 OK names the call's
 * MCP endpoint, its tools run in the call's world (whose hash ends as the scenario
 * expects) and its token dies with the call; a full server answers 486.
 */
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
// deno-lint-ignore no-import-prefix -- test-only package, kept out of the import map
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only package, kept out of the import map
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { mulawEncode } from "../src/audio/mulaw.ts";
import type { SipServerOptions } from "../src/server/sip_server.ts";
import type { SttProvider, SttResult } from "../src/speech/speech.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { ToolsServer } from "../src/tools_server/tools_server.ts";
import { changingScenarios } from "./_serve.ts";
import { SipCaller } from "./_sip_uac.ts";
import { FixedTts, REFILL, root, startSipServe } from "./_sip_serve.ts";
import { SimClock } from "../src/clock/clock.ts";

/** Each utterance is 300 ms of a 1 kHz tone. */
function tone300(): Int16Array {
  const s = new Int16Array(2400);
  for (let i = 0; i < s.length; i++) s[i] = Math.round(6000 * Math.sin(2 * Math.PI * i / 8));
  return s;
}
const toneTts = () => new FixedTts("tone", tone300);

async function start(options: Partial<SipServerOptions> = {}) {
  const tts = toneTts();
  return { tts, ...await startSipServe(tts, "navigator", options) };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("serve --sip: RFC 4733 keys lead the flow callee to its hangup, a BYE; RTP every 20 ms from the answer", async () => {
  const { sip, tts, ended } = await start();
  const caller = await SipCaller.open();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    const ok = await caller.call(uri, sip.port);
    assert.match(ok, /\r\nContent-Type: application\/sdp\r\n/);
    assert.match(ok, /\r\nm=audio \d+ RTP\/AVP 0 101\r\n/);
    assert.match(ok, /\r\na=rtpmap:101 telephone-event\/8000\r\n/);
    await until("the menu", () => tts.asked.length > 0 && caller.packets.length > 60);
    const audio = caller.packets.filter((p) => p.payloadType === 0);
    assert.ok(audio[0]!.marker, "the stream starts with the marker bit");
    for (let i = 1; i < audio.length; i++) {
      assert.equal((audio[i]!.seq - audio[i - 1]!.seq) & 0xffff, 1);
      assert.equal((audio[i]!.timestamp - audio[i - 1]!.timestamp) >>> 0, 160);
      assert.equal(audio[i]!.payload.length, 160);
    }
    const span = audio.at(-1)!.at - audio[0]!.at;
    const gaps = audio.slice(1).map((p, i) => p.at - audio[i]!.at).sort((x, y) => x - y);
    console.log(
      `RTP out: ${audio.length} packets over ${span.toFixed(1)} ms; gap p50 ${
        gaps[Math.floor(gaps.length / 2)]!.toFixed(2)
      } ms, p99 ${gaps[Math.floor(gaps.length * 0.99)]!.toFixed(2)} ms, max ${
        gaps.at(-1)!.toFixed(2)
      } ms`,
    );
    assert.ok(
      Math.abs(span - (audio.length - 1) * 20) < 100,
      `${audio.length} packets over ${span.toFixed(0)} ms`,
    );
    await caller.key("2");
    await until("the refill prompt", () => tts.asked.some((t) => /six-digit ID/.test(t)));
    for (const k of "123456#") await caller.key(k);
    await until(
      "the goodbye",
      () => tts.asked.some((t) => /refill request has been received/.test(t)),
    );
    await caller.next(/^BYE /, 8000);
    await until("the call's end", () => ended.length === 1);
    assert.equal(ended[0]!.ended_by, "callbench");
    assert.equal(ended[0]!.codec, "PCMU");
    assert.equal(sip.calls, 0);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: the navigator hears the menu (STT) and presses its keys as RFC 4733 events", async () => {
  // What the far end's two turns say: the clinic's menu, then its ID prompt.
  const said = [
    "Thank you for calling Riverside Animal Clinic. For appointments, press 1. " +
    "For prescription refills, press 2.",
    "Please enter your pet's six-digit ID number, then press pound.",
  ];
  const stt: SttProvider = {
    info: { provider: "script" },
    transcribe: (): Promise<SttResult> => Promise.resolve({ ok: true, text: said.shift() ?? "" }),
  };
  const tts = toneTts();
  const { sip } = await start({ audio: () => ({ tts, stt }) });
  const caller = await SipCaller.open();
  try {
    const uri = `sip:navigator@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await caller.call(uri, sip.port);
    const keysHeard = () => {
      // One key per press: its packets share a timestamp.
      const seen = new Map<number, number>();
      for (const p of caller.packets) {
        if (p.payloadType === 101 && !seen.has(p.timestamp)) seen.set(p.timestamp, p.payload[0]!);
      }
      return [...seen.values()].map((e) => "0123456789*#"[e]).join("");
    };
    const turn = async () => {
      // A second of speech, then a second of silence: the VAD's end of the turn.
      await caller.audio(mulawEncode(voicedSignal(8000, 1000, 3)));
      await caller.audio(mulawEncode(new Int16Array(8000)));
    };
    await turn();
    await until("the key 2", () => keysHeard() === "2", 8000);
    await turn();
    await until("the pet ID", () => keysHeard() === "2004217#", 8000);
    const ends = () =>
      caller.packets.filter((p) => p.payloadType === 101 && (p.payload[1]! & 0x80) !== 0);
    await until("the last press's end", () => ends().length >= 3 * 8);
    assert.equal(ends().length, 3 * 8, "each press ends with three end packets");
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: a re-INVITE to hold is answered recvonly and our RTP stops; resuming answers sendrecv and it flows again", async () => {
  const { sip } = await start();
  const caller = await SipCaller.open();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await caller.call(uri, sip.port);
    await until("RTP", () => caller.packets.length > 10);
    const held = await caller.reinvite(uri, "sendonly");
    assert.match(held, /^SIP\/2\.0 200 /);
    assert.match(held, /\r\na=recvonly\r\n/);
    await new Promise((r) => setTimeout(r, 60));
    const atHold = caller.packets.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(caller.packets.length, atHold, "nothing is sent on hold");
    const resumed = await caller.reinvite(uri, "sendrecv");
    assert.match(resumed, /\r\na=sendrecv\r\n/);
    await until("RTP again", () => caller.packets.length > atHold + 5);
    assert.equal(sip.calls, 1);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: RTP from another port or of another payload type is dropped and counted; the call goes on", async () => {
  const { sip, ended } = await start();
  const caller = await SipCaller.open();
  const stranger = createSocket("udp4");
  await new Promise<void>((r) => stranger.bind(0, "127.0.0.1", () => r()));
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await caller.call(uri, sip.port);
    // The caller's own audio latches its port; then a stranger and a wrong payload type.
    await caller.audio(mulawEncode(new Int16Array(800)));
    const packet = (pt: number) => {
      const p = new Uint8Array(172);
      p[0] = 0x80;
      p[1] = pt;
      return p;
    };
    for (let i = 0; i < 5; i++) caller.sendRtpBytes(packet(0), stranger);
    for (let i = 0; i < 7; i++) caller.sendRtpBytes(packet(96));
    caller.sendRtpBytes(new Uint8Array([1, 2, 3]));
    await caller.audio(mulawEncode(new Int16Array(800)));
    assert.match(await caller.hangUp(uri), /^SIP\/2\.0 200 /);
    await until("the call's end", () => ended.length === 1);
    const s = ended[0]!;
    assert.equal(s.ended_by, "far_end");
    assert.equal(s.refused.foreign, 5);
    assert.equal(s.refused.refused, 8);
    assert.equal(s.packets_received, 10);
  } finally {
    stranger.close();
    caller.close();
    await sip.close();
  }
});

for (
  const [user, world] of [
    ["scripted", "the scenario's agent world (the far end is the agent under test)"],
    ["navigator", "the hosted agent's session world"],
  ] as const
) {
  Deno.test(`serve --sip --tools-server, ${user}: the 200 OK names the call's MCP endpoint; the agent tools run in ${world}, which ends on the expected hash; the token dies with the call`, async () => {
    const [scenario] = await changingScenarios(root, "eva_airline", 1);
    assert.ok(scenario?.expect.reference_actions);
    const tools = ToolsServer.start();
    const { sip, ended } = await start({ session: { dataRoot: root, tools } });
    const caller = await SipCaller.open();
    try {
      const uri = `sip:${user}@127.0.0.1:${sip.port};scenario=${scenario.name}`;
      const ok = await caller.call(uri, sip.port);
      const url = /\r\nX-Callbench-Tools: (\S+)\r\n/.exec(ok)?.[1];
      assert.ok(url, ok);
      const backend = new Client({ name: "phone-agent-backend", version: "1" });
      await backend.connect(new StreamableHTTPClientTransport(new URL(url)));
      const listed = await backend.listTools();
      assert.deepEqual(
        listed.tools.map((t: { name: string }) => t.name).sort(),
        [...scenario.agent.tools].sort(),
      );
      for (const a of scenario.expect.reference_actions!.filter((x) => x.side === "agent")) {
        const r = await backend.callTool({
          name: a.name,
          arguments: a.arguments as Record<string, unknown>,
        });
        assert.notEqual(r.isError, true, `${a.name}: ${JSON.stringify(r.content)}`);
      }
      await backend.close();
      assert.match(await caller.hangUp(uri), /^SIP\/2\.0 200 /);
      await until("the call's end", () => ended.length === 1);
      assert.equal(ended[0]!.world?.db_hash, scenario.expect.db_sha256);
      assert.ok((ended[0]!.world?.actions.length ?? 0) > 0);
      const after = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      await after.body?.cancel();
      assert.equal(after.status, 401);
      assert.equal(tools.open, 0);
    } finally {
      caller.close();
      await sip.close();
      await tools.close();
    }
  });
}

Deno.test("serve --sip: audio far faster than real time is cut off as on a WebSocket: a BYE ends the call; the server lives on", async () => {
  const lines: string[] = [];
  const { sip, ended } = await start({ log: (l) => lines.push(l) });
  const caller = await SipCaller.open();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await caller.call(uri, sip.port);
    // 20 s of audio in one burst, past the 5 s burst of audio the session takes at once.
    const packet = new Uint8Array(172);
    packet[0] = 0x80;
    const view = new DataView(packet.buffer);
    for (let i = 0; i < 1000; i++) {
      view.setUint16(2, i);
      view.setUint32(4, i * 160);
      caller.sendRtpBytes(packet.slice());
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 1));
    }
    await caller.next(/^BYE /, 5000);
    await until("the call's end", () => ended.length === 1);
    assert.equal(ended[0]!.ended_by, "callbench");
    assert.match(lines.join("\n"), /faster than real time|audio/i);
    // The next call is answered.
    const next = await SipCaller.open();
    try {
      assert.match(await next.call(uri, sip.port), /^SIP\/2\.0 200 /);
    } finally {
      next.close();
    }
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: a retransmitted INVITE gets the same 200; past the most calls, 486", async () => {
  const { sip } = await start({ maxCalls: 1 });
  const first = await SipCaller.open();
  const second = await SipCaller.open();
  const third = await SipCaller.open();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    const ok1 = await first.call(uri, sip.port);
    await until("one call", () => sip.calls === 1);
    first.resendInvite();
    await until(
      "the answer again",
      () =>
        first.messages.filter((m) => m.startsWith("SIP/2.0 200 ") && / INVITE\r\n/.test(m))
          .length >= 2,
    );
    const again = first.messages.filter((m) => m.startsWith("SIP/2.0 200 ")).at(-1)!;
    assert.equal(again, ok1, "the very same 200 OK");
    assert.equal(sip.calls, 1);
    await assert.rejects(() => second.call(uri, sip.port), /INVITE refused: SIP\/2\.0 486 /);
    assert.match(await first.hangUp(uri), /^SIP\/2\.0 200 /);
    await until("no call", () => sip.calls === 0);
    const ok = await third.call(uri, sip.port);
    assert.match(ok, /^SIP\/2\.0 200 /);
  } finally {
    first.close();
    second.close();
    third.close();
    await sip.close();
  }
});

Deno.test("serve --sip: a 200 OK without an ACK is sent again at T1, 2 T1, ... then given up with a BYE (on a simulated clock)", async () => {
  const clock = new SimClock();
  const { sip } = await start({ clock });
  const caller = await SipCaller.open();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await caller.call(uri, sip.port, [], { ack: false });
    const oks = () => caller.messages.filter((m) => m.startsWith("SIP/2.0 200 ")).length;
    assert.equal(oks(), 1);
    // Retransmissions at 0.5, 1.5, 3.5 and 7.5 s; given up at 8 s (UNACKED_HOLD_MS), not
    // 32: a flood of INVITEs never ACKed must not hold the call slots.
    for (let t = 0; t < 7_900; t += 100) {
      await clock.advance(100);
      await new Promise((r) => setTimeout(r, 0));
    }
    await until("the retransmissions", () => oks() >= 5, 2000);
    assert.equal(oks(), 5);
    assert.equal(caller.messages.some((m) => m.startsWith("BYE ")), false);
    await clock.advance(100);
    await caller.next(/^BYE /, 2000);
    assert.equal(oks(), 5);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: ten calls at once each get their RTP every 20 ms", async () => {
  const { sip } = await start();
  const callers = await Promise.all(Array.from({ length: 10 }, () => SipCaller.open()));
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port};scenario=${REFILL}`;
    await Promise.all(callers.map((c) => c.call(uri, sip.port)));
    await new Promise((r) => setTimeout(r, 3000));
    const gaps: number[] = [];
    for (const c of callers) {
      const audio = c.packets.filter((p) => p.payloadType === 0);
      assert.ok(audio.length >= 100, `${audio.length} packets in 3 s`);
      for (let i = 1; i < audio.length; i++) gaps.push(audio[i]!.at - audio[i - 1]!.at);
      // Every packet of the stream, none lost or doubled.
      for (let i = 1; i < audio.length; i++) {
        assert.equal((audio[i]!.seq - audio[i - 1]!.seq) & 0xffff, 1);
      }
    }
    gaps.sort((a, b) => a - b);
    const p = (q: number) => gaps[Math.floor(gaps.length * q)]!;
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    console.log(
      `10 calls: ${gaps.length} RTP gaps, mean ${mean.toFixed(2)} ms, p50 ${p(0.5).toFixed(2)}, ` +
        `p99 ${p(0.99).toFixed(2)}, max ${gaps.at(-1)!.toFixed(2)} ms`,
    );
    assert.ok(Math.abs(mean - 20) < 1, `mean gap ${mean} ms`);
    // Loose: timers on a shared, loaded machine are late; the mean above is what drifts.
    assert.ok(p(0.99) < 100, `p99 gap ${p(0.99)} ms`);
  } finally {
    for (const c of callers) c.close();
    await sip.close();
  }
});
