/**
 * `serve --sip` against bad input on its UDP port: random datagrams, truncated and
 * mangled requests get a 400 or nothing, never a crash, and the server answers the next
 * good request; an offer with no common codec gets 488, a BYE for no call 481, an unknown
 * participant or scenario 404, a method it does not serve 405. Over a real socket.
 */
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { builtinFactory, hostedParticipant, scenarioLookup } from "../src/commands/serve.ts";
import { mulberry32 } from "../src/random/mulberry32.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { SipServer } from "../src/server/sip_server.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { pcm16 } from "../src/audio/pcm.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const FLOW = new URL("../scenarios/flows/animal_clinic.yaml", import.meta.url).pathname;

const silentTts: TtsProvider = {
  info: { provider: "silent", sampleRate: 8000 },
  synthesize: (): Promise<TtsResult> =>
    Promise.resolve({ ok: true, audio: pcm16(new Int16Array(1600), 8000) }),
  close: () => Promise.resolve(),
};

/** A UDP client that keeps every datagram it gets back. */
async function client() {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const got: string[] = [];
  let wake = () => {};
  socket.on("message", (data) => {
    got.push(new TextDecoder().decode(data));
    wake();
  });
  const port = socket.address().port;
  return {
    port,
    got,
    send: (data: string | Uint8Array, to: number) =>
      new Promise<void>((resolve) =>
        socket.send(
          typeof data === "string" ? new TextEncoder().encode(data) : data,
          to,
          "127.0.0.1",
          () => resolve(),
        )
      ),
    /** The next datagram whose status line matches, within `ms`. */
    async next(pattern: RegExp, ms = 2000): Promise<string> {
      const deadline = performance.now() + ms;
      while (performance.now() < deadline) {
        const i = got.findIndex((g) => pattern.test(g.split("\r\n")[0]!));
        if (i >= 0) return got.splice(i, 1)[0]!;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      throw new Error(
        `no answer matching ${pattern}; got ${JSON.stringify(got.map((g) => g.split("\r\n")[0]))}`,
      );
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

let n = 0;
/** A request from our client's port; `sdp` as the body. */
function request(
  method: string,
  uri: string,
  port: number,
  options: { sdp?: string; callId?: string; extra?: string[] } = {},
): string {
  const id = ++n;
  const body = options.sdp ?? "";
  return [
    `${method} ${uri} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bKfuzz${id}`,
    "Max-Forwards: 70",
    `From: <sip:fuzz@127.0.0.1:${port}>;tag=f${id}`,
    `To: <${uri}>`,
    `Call-ID: fuzz-${options.callId ?? id}@127.0.0.1`,
    `CSeq: 1 ${method}`,
    `Contact: <sip:fuzz@127.0.0.1:${port}>`,
    ...(options.extra ?? []),
    ...(body ? ["Content-Type: application/sdp"] : []),
    `Content-Length: ${new TextEncoder().encode(body).length}`,
    "",
    body,
  ].join("\r\n");
}

function offer(rtpPort: number, formats: string): string {
  return [
    "v=0",
    "o=fuzz 1 1 IN IP4 127.0.0.1",
    "s=-",
    "c=IN IP4 127.0.0.1",
    "t=0 0",
    `m=audio ${rtpPort} RTP/AVP ${formats}`,
    ...formats.split(" ").map((f) =>
      f === "0"
        ? "a=rtpmap:0 PCMU/8000"
        : f === "8"
        ? "a=rtpmap:8 PCMA/8000"
        : f === "9"
        ? "a=rtpmap:9 G722/8000"
        : `a=rtpmap:${f} opus/48000/2`
    ),
    "a=ptime:20",
    "",
  ].join("\r\n");
}

async function startServer() {
  const lookUp = scenarioLookup(root, [FLOW]);
  return await SipServer.start({
    port: 0,
    factory: builtinFactory(root, {}, {}, lookUp),
    lookUp,
    participantOf: hostedParticipant,
    defaultAgent: "navigator",
    audio: () => ({ tts: silentTts }),
    session: { dataRoot: root },
  });
}

Deno.test("serve --sip: random, truncated and mangled datagrams get 400 or nothing; the server answers the next good request", async () => {
  const sip = await startServer();
  const c = await client();
  try {
    const uri = `sip:flow@127.0.0.1:${sip.port}`;
    const good = request(
      "INVITE",
      `${uri};scenario=flow__riverside-animal-clinic__refill-by-pet-id`,
      c.port,
      { sdp: offer(40000, "0") },
    );
    const random = mulberry32(19);
    const datagrams: Uint8Array[] = [];
    for (let i = 0; i < 200; i++) {
      const len = Math.floor(random() * 1500);
      datagrams.push(Uint8Array.from({ length: len }, () => Math.floor(random() * 256)));
    }
    const bytes = new TextEncoder().encode(good);
    for (let i = 0; i < 200; i++) {
      // Truncated at any point, and with bytes flipped.
      const cut = bytes.slice(0, Math.floor(random() * bytes.length));
      datagrams.push(cut);
      const flipped = bytes.slice();
      for (let k = 0; k < 5; k++) {
        flipped[Math.floor(random() * flipped.length)] = Math.floor(random() * 256);
      }
      datagrams.push(flipped);
    }
    datagrams.push(new TextEncoder().encode("INVITE\r\n\r\n"));
    datagrams.push(
      new TextEncoder().encode(`INVITE ${uri} SIP/2.0\r\nContent-Length: 99999\r\n\r\n`),
    );
    datagrams.push(new TextEncoder().encode("SIP/2.0 200 OK\r\n\r\n"));
    // Paced a little, so loopback's socket buffers take them all.
    const sentFrom = performance.now();
    for (const [i, d] of datagrams.entries()) {
      await c.send(d, sip.port);
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 2));
    }
    const sendingS = (performance.now() - sentFrom) / 1000;
    await new Promise((r) => setTimeout(r, 300));
    // Every answer is a status line; none is a 5xx of our own making.
    for (const g of c.got) {
      assert.match(g.split("\r\n")[0]!, /^SIP\/2\.0 [1-6]\d\d /, g);
      assert.doesNotMatch(g.split("\r\n")[0]!, /^SIP\/2\.0 500 /, g);
    }
    // Loopback may drop a few under load; the point is what the server made of the rest.
    assert.ok(
      sip.datagrams >= datagrams.length * 0.95,
      `${sip.datagrams} of ${datagrams.length} arrived`,
    );
    assert.ok(sip.malformed >= 200, `${sip.malformed} malformed`);
    // Bad requests are answered 400, but a flood of them only at 20 a second (after a
    // burst of 20), however long the sending took on a loaded machine.
    const refused = c.got.filter((g) => g.startsWith("SIP/2.0 400 ")).length;
    const allowed = 20 + Math.ceil(20 * (sendingS + 0.3)) + 1;
    assert.ok(
      refused >= 1 && refused <= allowed,
      `${refused} answered 400 of ${sip.malformed} (${allowed} allowed in ${
        sendingS.toFixed(2)
      } s)`,
    );
    c.got.length = 0;
    await c.send(request("OPTIONS", uri, c.port), sip.port);
    await c.next(/^SIP\/2\.0 200 /);
  } finally {
    await c.close();
    await sip.close();
  }
});

Deno.test("serve --sip: no common codec is 488, a BYE for no call 481, an unknown participant or scenario 404, one that cannot start 500, MESSAGE 405", async () => {
  const sip = await startServer();
  const c = await client();
  try {
    const at = (user: string) => `sip:${user}@127.0.0.1:${sip.port}`;
    const refill = `${at("flow")};scenario=flow__riverside-animal-clinic__refill-by-pet-id`;
    await c.send(request("INVITE", refill, c.port, { sdp: offer(40002, "9 111") }), sip.port);
    await c.next(/^SIP\/2\.0 100 /);
    await c.next(/^SIP\/2\.0 488 /);
    await c.send(request("BYE", at("flow"), c.port, { callId: "nobody" }), sip.port);
    await c.next(/^SIP\/2\.0 481 /);
    await c.send(request("INVITE", at("nobody"), c.port, { sdp: offer(40004, "0") }), sip.port);
    await c.next(/^SIP\/2\.0 404 /);
    await c.send(
      request("INVITE", `${at("flow")};scenario=no_such_scenario`, c.port, {
        sdp: offer(40006, "0"),
      }),
      sip.port,
    );
    await c.next(/^SIP\/2\.0 404 /);
    const needs = await (async () => {
      await c.send(request("INVITE", at("oracle"), c.port, { sdp: offer(40008, "0") }), sip.port);
      return await c.next(/^SIP\/2\.0 404 /);
    })();
    assert.match(
      needs,
      /\r\nWarning: 399 callbench "oracle plays a scenario: give ;scenario=NAME"\r\n/,
    );
    // A participant that cannot start (the llm agent without a model): 500, nothing kept.
    await c.send(
      request(
        "INVITE",
        `${at("llm")};scenario=flow__riverside-animal-clinic__refill-by-pet-id`,
        c.port,
        {
          sdp: offer(40010, "0"),
        },
      ),
      sip.port,
    );
    await c.next(/^SIP\/2\.0 500 /);
    assert.equal(sip.calls, 0);
    await c.send(request("MESSAGE", at("flow"), c.port), sip.port);
    const refused = await c.next(/^SIP\/2\.0 405 /);
    assert.match(refused, /\r\nAllow: INVITE, ACK, BYE, CANCEL, OPTIONS, INFO\r\n/i);
    assert.equal(sip.calls, 0);
  } finally {
    await c.close();
    await sip.close();
  }
});
