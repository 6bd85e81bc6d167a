/**
 * A SIP phone agent of our own, on loopback UDP, with exactly known behaviour: it
 * answers an INVITE (SDP answer, PCMU or PCMA), greets `greetMs` after the call is up
 * (a menu prompt: the truth agent's voiced signal), and answers caller utterance i
 * `delays[i]` ms after its end of speech, measured by the truth agent's own energy
 * definition (`./_truth_agent.ts`, not callbench's code) on the RTP it received. After a
 * reply's audio it presses `keys[i]` as RFC 4733 telephone-events. A key callbench sends
 * it is heard (each press once) and answered, after the same delay, by a second prompt.
 * It sends BYE `byeAfter` replies in, once that reply has played.
 *
 * Its audio goes out in 20 ms RTP packets on its own real-time grid (setTimeout), only
 * while it speaks; `continuous`: all the time from the call's start, as phone endpoints
 * send it, digital silence between its utterances (each utterance on its own grid from
 * its speech, the silence's grid going on from its end). Timing is by `performance.now()` (the same clock as callbench's
 * real clock), and every reply is logged as a `TruthReplyLog`.
 *
 * Misbehaviours for the bad-input tests: `garbage` (answers the INVITE with bytes that
 * are not SIP), `no-codec` (answers 200 with an SDP of G.722 only), `reject` (486 Busy
 * Here), `wrong-source` (its audio comes from another UDP port), `wrong-pt` (its audio
 * has payload type 18).
 *
 * @module
 */
import dgram from "node:dgram";
import { mulawDecode, mulawEncode } from "../src/audio/mulaw.ts";
import { dtmfTones } from "../src/audio/dtmf.ts";
import { alawDecode, alawEncode } from "../src/audio/alaw.ts";
import {
  headerValue,
  newTag,
  parseSip,
  responseTo,
  serializeSip,
  type SipRequest,
} from "../src/protocol/sip.ts";
import { answerOffer, type NegotiatedMedia } from "../src/protocol/sdp.ts";
import { RtpSocketHost } from "../src/transport/rtp_socket.ts";
import { buildTelephoneEvent, dtmfEventCode, dtmfKeyOfEvent } from "../src/protocol/rtp.ts";
import { truthReply, type TruthReplyLog, truthSpeechEdges } from "./_truth_agent.ts";

export type SipAgentMisbehaviour = "garbage" | "no-codec" | "reject" | "wrong-source" | "wrong-pt";

export interface SipAgentOptions {
  /** Delay after each caller utterance's end, ms (the last repeats). */
  delays: readonly number[];
  /** Greeting (menu prompt) this long after the call is up; undefined: no greeting. */
  greetMs?: number;
  /** Reply speech length, ms (default 600). */
  speechMs?: number;
  /** Keys pressed after reply i (index 1 = the first caller utterance). */
  keys?: Readonly<Record<number, string>>;
  /** Sends BYE after this many replies (greeting not counted), once it has played. */
  byeAfter?: number;
  /** Codecs it accepts, in its order (default PCMU, PCMA). */
  codecs?: readonly ("PCMU" | "PCMA")[];
  misbehave?: SipAgentMisbehaviour;
  /** Digital silence that closes an utterance, ms (default 150, the truth agent's). */
  endSilenceMs?: number;
  /** Only the first call misbehaves (the next trial gets a good agent). */
  misbehaveOnce?: boolean;
  /**
   * Its own backend, run once the call is up with the INVITE's `X-Callbench-Tools` URL
   * (undefined without one); the agent sends BYE when it is done.
   */
  backend?: (toolsUrl: string | undefined) => Promise<void>;
  /** Its keys as in-band tones in its audio instead of telephone-events. */
  inbandKeys?: boolean;
  /**
   * Holds this thread this many ms right after each reply's first packet went out (a
   * test's stall, before callbench could read it; 0: none). The packets that fall due
   * meanwhile go out first, as a sender on a thread of its own would send them on time.
   */
  stallAfterFirstFrame?: (answers: number) => number;
  /** Sends RTP all the time: silence packets between its utterances. */
  continuous?: boolean;
}

export interface SipAgentSession {
  invite: SipRequest;
  media?: NegotiatedMedia;
  replies: TruthReplyLog[];
  /** Keys heard from callbench as telephone-events. */
  keysHeard: string[];
  /** Its own keys: when each press's first packet (its tone's first frame) went out. */
  keysSent: { key: string; at: number }[];
  /** Caller utterances heard (ends by the energy definition, performance.now()). */
  heard: { startAt: number; endAt: number }[];
  packetsIn: number;
  packetsOut: number;
  byeReceived: boolean;
  byeSent: boolean;
  /** Arrival of each caller packet less its place on the stream's grid, ms. */
  offsets: number[];
}

function rtpHeader(pt: number, seq: number, ts: number, ssrc: number, marker = false): Uint8Array {
  const h = new Uint8Array(12);
  const v = new DataView(h.buffer);
  h[0] = 0x80;
  h[1] = (marker ? 0x80 : 0) | pt;
  v.setUint16(2, seq & 0xffff);
  v.setUint32(4, ts >>> 0);
  v.setUint32(8, ssrc >>> 0);
  return h;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** An RTP socket of the agent's own Worker, and who hears it (set once the call is up). */
interface AgentRtp {
  port: number;
  send(bytes: Uint8Array, port: number, address: string): void;
  close(): void;
  /** `atMs`: when the datagram arrived (`performance.now()`). */
  hear(fn: (bytes: Uint8Array, atMs: number) => void): void;
}

/**
 * The agents' media, on a thread of their own as a real agent's would be: what one sends
 * goes out when it sends it, whatever callbench's thread is doing. One Worker for all
 * agents (starting a Worker holds this thread for tens of ms, in other calls' audio).
 */
const rtpHost = new RtpSocketHost();

async function openAgentRtp(): Promise<AgentRtp> {
  let hear = (_bytes: Uint8Array, _atMs: number) => {};
  const s = await rtpHost.open("127.0.0.1", {
    message: (bytes, _from, atMs) => hear(bytes, atMs),
    error: () => {},
  });
  return { port: s.port, send: s.send, close: s.close, hear: (fn) => void (hear = fn) };
}

function bindUdp(): Promise<dgram.Socket> {
  return new Promise((resolve) => {
    const s = dgram.createSocket("udp4");
    s.bind(0, "127.0.0.1", () => resolve(s));
  });
}

/** Starts the agent on a free loopback port; `uri` is what `--agent` takes. */
export async function startSipAgent(options: SipAgentOptions) {
  let callCount = 0;
  const answering = new Set<string>();
  const sip = await bindUdp();
  const sessions: SipAgentSession[] = [];
  const closers = new Set<() => void>();
  const port = sip.address().port;
  /** Every SIP datagram in and out, as text (PROTOCOL.md's example is recorded from it). */
  const wire: { dir: "in" | "out"; text: string }[] = [];
  const send = (text: string | Uint8Array, to: { port: number; address: string }) => {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    wire.push({ dir: "out", text: new TextDecoder().decode(bytes) });
    sip.send(bytes, to.port, to.address);
  };
  const calls = new Map<
    string,
    { session: SipAgentSession; hangUp: () => void; end: () => void }
  >();

  sip.on("message", async (msg, rinfo) => {
    wire.push({ dir: "in", text: new TextDecoder().decode(msg) });
    const read = parseSip(new Uint8Array(msg));
    if (!read.ok || read.message.kind !== "request") return;
    const req = read.message;
    const from = { address: rinfo.address, port: rinfo.port };
    const callId = headerValue(req, "Call-ID")!;
    if (req.method === "INVITE") {
      const known = calls.get(callId);
      if (known || answering.has(callId)) return; // a retransmission: the answer is on its way
      answering.add(callId);
      const o = callCount++ > 0 && options.misbehaveOnce
        ? { ...options, misbehave: undefined }
        : options;
      if (o.misbehave === "garbage") return send(new Uint8Array([0xde, 0xad, 0xbe, 0xef]), from);
      if (o.misbehave === "reject") {
        return send(serializeSip(responseTo(req, 486, "Busy Here", { toTag: newTag() })), from);
      }
      const rtp = await openAgentRtp();
      const other = o.misbehave === "wrong-source" ? await openAgentRtp() : undefined;
      const toTag = newTag();
      const answer = o.misbehave === "no-codec"
        ? {
          ok: true as const,
          sdp: "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio " +
            rtp.port + " RTP/AVP 9\r\na=rtpmap:9 G722/8000\r\n",
          media: undefined,
        }
        : answerOffer(req.body, {
          address: "127.0.0.1",
          port: rtp.port,
          sessionId: 1,
          ...(o.codecs ? { codecs: o.codecs } : {}),
        });
      if (!answer.ok) {
        rtp.close();
        return send(serializeSip(responseTo(req, 488, "Not Acceptable Here", { toTag })), from);
      }
      const session: SipAgentSession = {
        invite: req,
        ...(answer.media ? { media: answer.media } : {}),
        replies: [],
        keysHeard: [],
        keysSent: [],
        heard: [],
        packetsIn: 0,
        packetsOut: 0,
        byeReceived: false,
        byeSent: false,
        offsets: [],
      };
      sessions.push(session);
      const contact = `<sip:agent@127.0.0.1:${port}>`;
      send(serializeSip(responseTo(req, 100, "Trying")), from);
      send(serializeSip(responseTo(req, 180, "Ringing", { toTag })), from);
      const ok = responseTo(req, 200, "OK", {
        toTag,
        headers: [["Contact", contact], ["Content-Type", "application/sdp"]],
        body: answer.sdp,
      });
      send(serializeSip(ok), from);
      const call = runMedia(session, rtp, other, o, () => {
        // Its BYE: in the dialog, From and To swapped.
        session.byeSent = true;
        const bye: SipRequest = {
          kind: "request",
          method: "BYE",
          uri: /<([^>]+)>/.exec(headerValue(req, "Contact") ?? "")?.[1] ??
            "sip:callbench@127.0.0.1",
          headers: [
            ["Via", `SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bK${newTag()}`],
            ["Max-Forwards", "70"],
            ["From", `${headerValue(ok, "To")}`],
            ["To", headerValue(req, "From")!],
            ["Call-ID", callId],
            ["CSeq", "1 BYE"],
          ],
          body: "",
        };
        send(serializeSip(bye), from);
      });
      calls.set(callId, { session, ...call });
      closers.add(call.end);
      if (o.backend) {
        void o.backend(headerValue(req, "X-Callbench-Tools")).then(() => {
          if (!session.byeReceived) call.hangUp();
        });
      }
      return;
    }
    const call = calls.get(callId);
    if (req.method === "BYE") {
      send(serializeSip(responseTo(req, 200, "OK")), from);
      if (call) {
        call.session.byeReceived = true;
        call.end();
      }
    }
  });

  return {
    uri: `sip:agent@127.0.0.1:${port}`,
    port,
    sessions,
    wire,
    async close() {
      for (const c of closers) c();
      await new Promise<void>((r) => sip.close(() => r()));
    },
  };
}

/** The call's audio: hears the caller's RTP, replies on its own grid, presses keys. */
function runMedia(
  session: SipAgentSession,
  rtp: AgentRtp,
  other: AgentRtp | undefined,
  o: SipAgentOptions,
  sendBye: () => void,
): { hangUp: () => void; end: () => void } {
  const media = session.media;
  const rate = 8000;
  const pcma = media?.codec === "PCMA";
  const encode = pcma ? alawEncode : mulawEncode;
  const decode = pcma ? alawDecode : mulawDecode;
  const pt = o.misbehave === "wrong-pt" ? 18 : media?.payloadType ?? 0;
  const ssrc = 0x5a5a0001;
  let seq = 1000;
  let ts = 0;
  let closed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const at = (t: number, fn: () => void) => {
    const id = setTimeout(() => {
      timers.delete(id);
      if (!closed) fn();
    }, Math.max(0, t - performance.now()));
    timers.add(id);
  };
  const out = (packet: Uint8Array) => {
    if (closed || !media) return;
    session.packetsOut++;
    (other ?? rtp).send(packet, media.remotePort, media.remoteAddress);
  };
  let replies = 0;
  /** Utterances (replies, in-band keys) being sent: no silence packet goes out meanwhile. */
  let speaking = 0;
  /** `continuous`: the silence grid's next slot. */
  let silenceAt = performance.now();
  const silent = new Uint8Array(160).fill(pcma ? 0xd5 : 0xff);
  const silenceTick = () => {
    while (silenceAt <= performance.now()) {
      if (speaking === 0) {
        out(concat(rtpHeader(pt, seq++, ts, ssrc, session.packetsOut === 0), silent));
        ts += 160;
      }
      silenceAt += 20;
    }
    at(silenceAt, silenceTick);
  };
  /** An utterance ends at `endAt`: the silence grid goes on from there. */
  const spoke = (endAt: number) => {
    if (--speaking === 0) silenceAt = endAt;
  };
  /** Reply audio on a 20 ms grid from `speechAt`, then keys, then maybe BYE. */
  const reply = (answers: number, delayMs: number, callerEndAt: number, keys?: string) => {
    const audio = truthReply(rate, 0, o.speechMs, answers + 1);
    const speechAt = callerEndAt + delayMs;
    const log: TruthReplyLog = {
      answers,
      delayMs,
      callerEndAt,
      callerAudioEndAt: callerEndAt,
      firstFrameAt: 0,
      speechAt: 0,
    };
    session.replies.push(log);
    let k = 0;
    const frames = Math.ceil(audio.length / 160);
    const sendFrame = () => {
      const payload = new Uint8Array(160).fill(pcma ? 0xd5 : 0xff);
      payload.set(encode(audio.subarray(k * 160, (k + 1) * 160)));
      out(concat(rtpHeader(pt, seq++, ts, ssrc, k === 0 && !o.continuous), payload));
      ts += 160;
      k++;
    };
    const tick = () => {
      const now = performance.now();
      while (k < frames && speechAt + k * 20 <= now) {
        if (k === 0) {
          log.firstFrameAt = log.speechAt = performance.now();
          speaking++;
        }
        sendFrame();
        const stall = k === 1 ? o.stallAfterFirstFrame?.(answers) ?? 0 : 0;
        if (stall <= 0) continue;
        const until = performance.now() + stall;
        while (k < frames && speechAt + k * 20 < until) sendFrame();
        while (performance.now() < until) { /* held */ }
      }
      if (k < frames) return at(speechAt + k * 20, tick);
      const done = speechAt + frames * 20;
      spoke(done);
      if (keys) pressKeys(keys, done + 100);
      if (answers > 0 && o.byeAfter !== undefined && ++replies >= o.byeAfter) {
        at(done + 200 + (keys ? keys.length * 200 : 0), sendBye);
      }
    };
    at(speechAt, tick);
  };
  const pressKeys = (keys: string, startAt: number) => {
    if (o.inbandKeys) {
      const tones = dtmfTones(keys, { sampleRate: rate });
      let k = 0;
      const frames = Math.ceil(tones.length / 160);
      const tick = () => {
        while (k < frames && startAt + k * 20 <= performance.now()) {
          if (k === 0) speaking++;
          // Each key's tone begins a 200 ms slot (100 ms of tone, 100 ms of gap).
          if (k % 10 === 0 && k / 10 < keys.length) {
            session.keysSent.push({ key: keys[k / 10]!, at: performance.now() });
          }
          const payload = new Uint8Array(160).fill(pcma ? 0xd5 : 0xff);
          payload.set(encode(tones.subarray(k * 160, (k + 1) * 160)));
          out(concat(rtpHeader(pt, seq++, ts, ssrc), payload));
          ts += 160;
          k++;
        }
        if (k < frames) return at(startAt + k * 20, tick);
        spoke(startAt + frames * 20);
      };
      return at(startAt, tick);
    }
    [...keys].forEach((key, i) => {
      const code = dtmfEventCode(key)!;
      const t0 = startAt + i * 200;
      const eventTs = ts + i * 1600;
      const ept = media?.telephoneEvent ?? 101;
      for (let j = 0; j < 5; j++) {
        at(t0 + j * 20, () => {
          if (j === 0) session.keysSent.push({ key, at: performance.now() });
          out(concat(
            rtpHeader(ept, seq++, eventTs, ssrc, j === 0),
            buildTelephoneEvent({ event: code, end: false, volume: 10, duration: (j + 1) * 160 }),
          ));
        });
      }
      for (let j = 0; j < 3; j++) {
        at(t0 + 100 + j * 20, () =>
          out(concat(
            rtpHeader(ept, seq++, eventTs, ssrc),
            buildTelephoneEvent({ event: code, end: true, volume: 10, duration: 800 }),
          )));
      }
    });
  };
  if (o.continuous) silenceTick();
  if (o.greetMs !== undefined) reply(0, o.greetMs, performance.now());

  // Hearing: the caller's stream, its zero, its utterances (the truth agent's definition).
  const heard: number[] = [];
  let zero = Infinity;
  let uttStart = -1;
  let quiet = 0;
  let scanned = 0;
  let lastEventTs = -1;
  const n = (rate * 10) / 1000;
  rtp.hear((b, arrivedAt) => {
    if (b.length < 12 || closed) return;
    const cc = b[0]! & 0x0f;
    const payload = b.subarray(12 + 4 * cc);
    const ptIn = b[1]! & 0x7f;
    const ets = new DataView(b.buffer, b.byteOffset).getUint32(4);
    if (ptIn === media?.telephoneEvent) {
      if (ets !== lastEventTs && payload.length >= 4) {
        lastEventTs = ets;
        const key = dtmfKeyOfEvent(payload[0]!);
        if (key) {
          session.keysHeard.push(key);
          // The second prompt, after the delay of the next reply, from the key's arrival.
          const i = session.heard.length + 1;
          reply(
            100 + session.keysHeard.length,
            o.delays[Math.min(i, o.delays.length) - 1]!,
            performance.now(),
          );
        }
      }
      return;
    }
    if (ptIn !== media?.payloadType) return;
    session.packetsIn++;
    const now = arrivedAt;
    session.offsets.push(now - (heard.length * 1000) / rate);
    zero = Math.min(zero, now - (heard.length * 1000) / rate);
    for (const v of decode(payload)) heard.push(v);
    while (scanned + n <= heard.length) {
      let sum = 0;
      for (let i = scanned; i < scanned + n; i++) sum += heard[i]! * heard[i]!;
      const db = sum > 0 ? 10 * Math.log10(sum / n / (32768 * 32768)) : -Infinity;
      if (db > -70) {
        if (uttStart < 0) {
          uttStart = scanned;
          while (heard[uttStart] === 0) uttStart++;
        }
        quiet = 0;
      } else if (uttStart >= 0 && ++quiet * 10 >= (o.endSilenceMs ?? 150)) {
        const edges = truthSpeechEdges(heard.slice(uttStart, scanned + n), rate);
        if (edges && edges.endMs - edges.startMs >= 100) {
          const startAt = zero + (uttStart * 1000) / rate;
          session.heard.push({ startAt: startAt + edges.startMs, endAt: startAt + edges.endMs });
          const i = session.heard.length;
          reply(i, o.delays[Math.min(i, o.delays.length) - 1]!, startAt + edges.endMs, o.keys?.[i]);
        }
        uttStart = -1;
        quiet = 0;
      }
      scanned += n;
    }
  });
  const end = () => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearTimeout(t);
    rtp.close();
    other?.close();
  };
  return { hangUp: sendBye, end };
}
