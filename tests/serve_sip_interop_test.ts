/**
 * `serve --sip` among real phones and proxies, against a SIP caller of our own
 * (tests/_sip_uac.ts) over real sockets: CRLF keep-alives are answered, every response
 * honours `rport` (RFC 3581), a proxy's Record-Route is copied and our BYE follows the
 * route set, hold and resume keep the RTP latch, SIP INFO and in-band keys drive the
 * flow, a restarted RTP stream is heard, dialogs are matched by tags and source, a flood
 * of INVITEs never ACKed does not lock a real caller out, keys past their bound end the
 * call, and every request gets a final answer.
 */
import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { mulawEncode } from "../src/audio/mulaw.ts";
import { dtmfTones } from "../src/audio/dtmf.ts";
import { hostingProblem } from "../src/commands/serve.ts";
import type { SipServerOptions } from "../src/server/sip_server.ts";
import { SipCaller } from "./_sip_uac.ts";
import { FixedTts, REFILL, startSipServe } from "./_sip_serve.ts";

function tone300(): Int16Array {
  const s = new Int16Array(2400);
  for (let i = 0; i < s.length; i++) s[i] = Math.round(6000 * Math.sin(2 * Math.PI * i / 8));
  return s;
}

async function start(options: Partial<SipServerOptions> = {}) {
  const tts = new FixedTts("tone", tone300);
  return { tts, ...await startSipServe(tts, "navigator", options) };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function udp(address = "127.0.0.1") {
  const socket: Socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
  const got: { text: string; from: number }[] = [];
  socket.on(
    "message",
    (data, rinfo) => got.push({ text: new TextDecoder().decode(data), from: rinfo.port }),
  );
  return {
    socket,
    got,
    port: socket.address().port,
    send: (text: string | Uint8Array, port: number) =>
      socket.send(
        typeof text === "string" ? new TextEncoder().encode(text) : text,
        port,
        "127.0.0.1",
      ),
    close: () => socket.close(),
  };
}

const uriOf = (port: number) => `sip:flow@127.0.0.1:${port};scenario=${REFILL}`;

Deno.test("serve --sip: a CRLF keep-alive ping is answered with one CRLF, and is no malformed datagram", async () => {
  const { sip } = await start();
  const peer = await udp();
  try {
    peer.send("\r\n\r\n", sip.port);
    await until("the pong", () => peer.got.length > 0, 2000);
    assert.equal(peer.got[0]!.text, "\r\n");
    peer.send("\r\n", sip.port); // a pong is not answered
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(peer.got.length, 1);
    assert.equal(sip.malformed, 0);
  } finally {
    peer.close();
    await sip.close();
  }
});

Deno.test("serve --sip: every response goes where the request came from and says so in its Via (rport, received)", async () => {
  const { sip } = await start();
  // Its Via names an address it does not send from (as baresip's does by default).
  const caller = await SipCaller.open({ via: "192.0.2.2:41313;rport" });
  try {
    const ok = await caller.call(uriOf(sip.port), sip.port);
    const via = /\r\nVia: ([^\r\n]+)/.exec(ok)![1]!;
    assert.match(via, /^SIP\/2\.0\/UDP 192\.0\.2\.2:41313;branch=z9hG4bK/);
    assert.match(via, new RegExp(`;received=127\\.0\\.0\\.1;rport=${caller.sipPort}$`));
    const trying = await caller.next(/^SIP\/2\.0 100 /);
    assert.match(trying, new RegExp(`;rport=${caller.sipPort}\r\n`));
    const bye = await caller.hangUp(uriOf(sip.port));
    assert.match(bye, /^SIP\/2\.0 200 /);
    assert.match(bye, new RegExp(`;rport=${caller.sipPort}\r\n`));
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: behind a proxy, the 200 OK copies its Record-Route and our BYE goes to it with Route", async () => {
  const { sip } = await start();
  const proxy = await udp();
  const caller = await SipCaller.open();
  try {
    const rr = [
      `Record-Route: <sip:127.0.0.1:${proxy.port};lr;ftag=uac1>`,
      `Record-Route: <sip:127.0.0.9:5999;lr>`,
    ];
    const ok = await caller.call(uriOf(sip.port), sip.port, rr);
    assert.match(
      ok,
      new RegExp(
        `\r\nRecord-Route: <sip:127\\.0\\.0\\.1:${proxy.port};lr;ftag=uac1>\r\nRecord-Route: <sip:127\\.0\\.0\\.9:5999;lr>\r\n`,
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    await sip.close(); // hangs up: our BYE
    await until("the BYE at the proxy", () => proxy.got.some((g) => g.text.startsWith("BYE ")));
    const bye = proxy.got.find((g) => g.text.startsWith("BYE "))!.text;
    // The Request-URI is the caller's Contact; the route set, in order, as Route.
    assert.match(bye, new RegExp(`^BYE sip:uac@127\\.0\\.0\\.1:${caller.sipPort} SIP/2\\.0\r\n`));
    assert.match(
      bye,
      new RegExp(
        `\r\nRoute: <sip:127\\.0\\.0\\.1:${proxy.port};lr;ftag=uac1>\r\nRoute: <sip:127\\.0\\.0\\.9:5999;lr>\r\n`,
      ),
    );
    assert.equal(
      caller.messages.some((m) => m.startsWith("BYE ")),
      false,
      "not sent around the proxy",
    );
  } finally {
    caller.close();
    proxy.close();
    await sip.close();
  }
});

Deno.test("serve --sip: hold and resume keep the latched RTP source; keys after the resume are heard (SDP naming another interface)", async () => {
  const { sip, tts, ended } = await start();
  // Its SDP names an address it does not send from (a phone advertising another interface).
  const caller = await SipCaller.open({ sdpAddress: "192.0.2.2" });
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    // Silence latches the stream on where it really comes from.
    await caller.audio(new Uint8Array(800).fill(0xff));
    await until("our RTP at the caller", () => caller.packets.length > 10);
    const held = await caller.reinvite(uri, "sendonly");
    assert.match(held, /\r\na=recvonly\r\n/);
    await new Promise((r) => setTimeout(r, 200));
    const resumed = await caller.reinvite(uri, "sendrecv");
    assert.match(resumed, /\r\na=sendrecv\r\n/);
    const before = caller.packets.length;
    await until(
      "our RTP after the resume, at the latched source",
      () => caller.packets.length > before + 10,
    );
    await caller.key("2");
    await until("the refill prompt", () => tts.asked.some((t) => /six-digit ID/.test(t)));
    await caller.hangUp(uri);
    await until("the call's end", () => ended.length === 1);
    assert.equal(ended[0]!.held, true);
    assert.equal(ended[0]!.refused.foreign, 0);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: RTP from a third party that sends first is not latched when the SDP names the caller's own address", async () => {
  const { sip, ended } = await start();
  const caller = await SipCaller.open();
  const spoofer = await udp();
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    const packet = new Uint8Array(172);
    packet[0] = 0x80;
    for (let i = 0; i < 20; i++) spoofer.send(packet, caller.serverRtpPort);
    await new Promise((r) => setTimeout(r, 100));
    await caller.key("2");
    await until("our RTP at the caller", () => caller.packets.length > 10);
    assert.equal(spoofer.got.length, 0, "the spoofer gets none of the call's audio");
    await caller.hangUp(uri);
    await until("the call's end", () => ended.length === 1);
    assert.ok(ended[0]!.refused.foreign >= 15, `${ended[0]!.refused.foreign} foreign`);
  } finally {
    caller.close();
    spoofer.close();
    await sip.close();
  }
});

Deno.test("serve --sip: SIP INFO keys (dtmf-relay and dtmf) and in-band tones lead the flow callee to its goodbye", async () => {
  const { sip, tts, ended } = await start();
  const caller = await SipCaller.open();
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    await until("the menu", () => tts.asked.length > 0);
    // In-band: the tone of 2, as audio.
    await caller.audio(mulawEncode(dtmfTones("2", { sampleRate: 8000 })));
    await until("the refill prompt", () => tts.asked.some((t) => /six-digit ID/.test(t)));
    for (const k of "123") assert.match(await caller.info(k), /^SIP\/2\.0 200 /);
    for (const k of "456") {
      assert.match(await caller.info(k, "application/dtmf"), /^SIP\/2\.0 200 /);
    }
    assert.match(await caller.info("11"), /^SIP\/2\.0 200 /); // 11 is #
    await until(
      "the goodbye",
      () => tts.asked.some((t) => /refill request has been received/.test(t)),
      8000,
    );
    await caller.next(/^BYE /, 8000);
    await until("the call's end", () => ended.length === 1);
    assert.equal(ended[0]!.keys, 8);
    assert.deepEqual(ended[0]!.keysBy, { rfc4733: 0, info: 7, inband: 1 });
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: keys faster than their bound end the call with a BYE naming it", async () => {
  const { sip, ended } = await start();
  const caller = await SipCaller.open();
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    for (let i = 0; i < 60; i++) {
      caller.sendSip(caller.requestText("INFO", ["Content-Type: application/dtmf"], "5"));
    }
    await caller.next(/^BYE /, 5000);
    await until("the call's end", () => ended.length === 1);
    assert.match(ended[0]!.bound ?? "", /pressed keys faster than 10 a second/);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: a restarted RTP stream (new SSRC, sequence far lower) is heard", async () => {
  const { sip, ended } = await start();
  const caller = await SipCaller.open();
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    const speech = mulawEncode(tone300().subarray(0, 1600)); // 10 packets
    caller.restartStream(0x1111, 40000);
    await caller.audio(speech);
    caller.restartStream(0x2222, 20000);
    await caller.audio(speech);
    // And a jump far back on the same SSRC, which the next packet confirms.
    caller.restartStream(0x2222, 10);
    await caller.audio(speech);
    await caller.hangUp(uri);
    await until("the call's end", () => ended.length === 1);
    // The jump back loses the packet that starts it, as RFC 3550's receiver does.
    assert.ok(ended[0]!.packets_received >= 29, `${ended[0]!.packets_received} of 30 taken`);
  } finally {
    caller.close();
    await sip.close();
  }
});

Deno.test("serve --sip: dialogs are matched by Call-ID, tags and source: another peer's BYE or re-INVITE with the same Call-ID gets 481", async () => {
  const { sip, ended } = await start();
  const caller = await SipCaller.open();
  const other = await udp("127.0.0.2");
  try {
    const uri = uriOf(sip.port);
    await caller.call(uri, sip.port);
    // The same Call-ID, no tags of the dialog, from the same address.
    const intruder = await udp();
    const forged = caller.requestText("BYE").replace(/;tag=uac1/, ";tag=evil").replace(
      /(\r\nTo:[^\r\n]*);tag=[^\r\n;]+/,
      "$1;tag=guess",
    );
    intruder.send(forged, sip.port);
    // A re-INVITE of the call from elsewhere, tags and all.
    other.send(caller.requestText("INVITE"), sip.port);
    // Even with the right tags, from another address.
    other.send(caller.requestText("BYE"), sip.port);
    await until("three refusals", () => other.got.length + intruder.got.length >= 3, 3000);
    for (const g of [...other.got, ...intruder.got]) assert.match(g.text, /^SIP\/2\.0 481 /);
    intruder.close();
    assert.equal(sip.calls, 1, "the call goes on");
    assert.match(await caller.hangUp(uri), /^SIP\/2\.0 200 /);
    await until("the call's end", () => ended.length === 1);
    assert.equal(ended[0]!.ended_by, "far_end");
  } finally {
    caller.close();
    other.close();
    await sip.close();
  }
});

Deno.test("serve --sip: a flood of INVITEs never ACKed does not lock out a real caller", async () => {
  const { sip } = await start({ maxCalls: 10 });
  const flood = await udp();
  const caller = await SipCaller.open();
  try {
    const sdp = [
      "v=0",
      "o=f 1 1 IN IP4 127.0.0.1",
      "s=-",
      "c=IN IP4 127.0.0.1",
      "t=0 0",
      "m=audio 9 RTP/AVP 0",
      "a=rtpmap:0 PCMU/8000",
      "",
    ].join("\r\n");
    for (let i = 0; i < 40; i++) {
      flood.send(
        [
          `INVITE ${uriOf(sip.port)} SIP/2.0`,
          `Via: SIP/2.0/UDP 127.0.0.1:${flood.port};branch=z9hG4bKflood${i}`,
          `From: <sip:f@127.0.0.1>;tag=f${i}`,
          `To: <sip:flow@127.0.0.1>`,
          `Call-ID: flood-${i}@127.0.0.1`,
          "CSeq: 1 INVITE",
          "Content-Type: application/sdp",
          `Content-Length: ${sdp.length}`,
          "",
          sdp,
        ].join("\r\n"),
        sip.port,
      );
    }
    await until(
      "the flood's answers",
      () => flood.got.filter((g) => /^SIP\/2\.0 (200|486) /.test(g.text)).length >= 30,
      8000,
    );
    const ok = await caller.call(uriOf(sip.port), sip.port);
    assert.match(ok, /^SIP\/2\.0 200 /);
    assert.ok(sip.calls <= 9, `${sip.calls} calls held`);
  } finally {
    caller.close();
    flood.close();
    await sip.close();
  }
});

Deno.test("serve --sip: every request gets a final answer: a malformed %-escape, CSeq 2^32, a CSeq of another method, an llm without its model", async () => {
  const { sip } = await start({ cannotHost: (p) => hostingProblem(p.name, p.side, {}) });
  const peer = await udp();
  const invite = (uri: string, cseq = "1 INVITE", callId = crypto.randomUUID()) =>
    [
      `INVITE ${uri} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${callId.slice(0, 8)}`,
      `From: <sip:p@127.0.0.1>;tag=p1`,
      `To: <${uri}>`,
      `Call-ID: ${callId}`,
      `CSeq: ${cseq}`,
      "Content-Length: 0",
      "",
      "",
    ].join("\r\n");
  const finalFor = async (text: string) => {
    const callId = /\r\nCall-ID: ([^\r\n]+)/.exec(text)![1]!;
    peer.send(text, sip.port);
    await until(
      `a final answer to ${text.split("\r\n")[0]}`,
      () => peer.got.some((g) => g.text.includes(callId) && /^SIP\/2\.0 [2-6]\d\d /.test(g.text)),
      3000,
    );
    return peer.got.find((g) => g.text.includes(callId) && /^SIP\/2\.0 [2-6]\d\d /.test(g.text))!
      .text;
  };
  try {
    const base = `127.0.0.1:${sip.port}`;
    assert.match(await finalFor(invite(`sip:fl%zzow@${base}`)), /^SIP\/2\.0 400 /);
    assert.match(await finalFor(invite(`sip:flow@${base};scenario=%E0%A4%A`)), /^SIP\/2\.0 400 /);
    const big = await finalFor(invite(`sip:flow@${base}`, "4294967296 INVITE"));
    assert.match(big, /^SIP\/2\.0 400 /);
    assert.match(big, /\r\nCSeq: 4294967296 INVITE\r\n/);
    assert.match(await finalFor(invite(`sip:flow@${base}`, "1 BYE")), /^SIP\/2\.0 400 /);
    const llm = await finalFor(invite(`sip:llm@${base}`));
    assert.match(llm, /^SIP\/2\.0 500 /);
    assert.match(llm, /needs --agent-model/);
  } finally {
    peer.close();
    await sip.close();
  }
});
