/**
 * A phone agent dialled over SIP (`--agent sip:USER@HOST[:PORT][;transport=udp]`):
 * callbench is the calling user agent (RFC 3261 over UDP), the agent answers, and the
 * call's audio is RTP (`./sip_call.ts`). Signalling here:
 *
 * - INVITE with an SDP offer (PCMU, PCMA, telephone-event 101; `src/protocol/sdp.ts`),
 *   retransmitted on the T1 timer (500 ms, doubling to 4 s) until a response, given up
 *   after 64 × T1 (`agent_unreachable`). 100/180/183 are waited through; 200 is
 *   ACKed (and ACKed again when it is retransmitted); a 3xx-6xx final answer is ACKed
 *   and ends the trial: `protocol_error` for an answer that says our request was at
 *   fault (400, 415, 488, 606), else `agent_unreachable`, the status and reason in the
 *   message. An answer without a common codec is `protocol_error` too (we hang up).
 * - With `eval --tools-server`, the INVITE carries the call's MCP endpoint in
 *   `X-Callbench-Tools` (the URL holds the call's token).
 * - BYE both ways: ours when the caller hangs up, the agent's ends the call as
 *   `agent_end` (answered 200). OPTIONS is answered 200; other requests in the call 501.
 * - Among real phones and proxies (`./sip_dialog.ts`): CRLF keep-alives are answered
 *   (a ping gets a pong) and are no message; our answers to the agent's requests honour
 *   `rport`; a 200 OK's `Record-Route` is the dialog's route set, which our ACK and BYE
 *   carry as `Route` and go through. The agent's re-INVITE (hold: `sendonly` or
 *   `inactive`, resume: `sendrecv`) is answered with the mirrored direction; a held call
 *   is traced (`sip_hold`) and its silence is not the agent's. SIP INFO keys
 *   (`application/dtmf-relay`, `application/dtmf`) are the agent's keys as RFC 4733
 *   events are; with `dtmf: "info"` the caller's keys go as INFO when the agent's
 *   `Allow` names it.
 * - A datagram from an address that is not the agent's (its URI's, its Contact's, its
 *   first route's) is a third party's: counted and traced (`sip_foreign`), never the
 *   agent's fault. From the agent, one that is not SIP, or a SIP message with a bad
 *   header, is `protocol_error` naming what was wrong.
 * - Turns and measures as for Twilio: VAD on the agent's audio, words from the STT
 *   (`--stt`) else {@link WORDS_UNKNOWN}; keys both ways as RFC 4733 events, or as
 *   in-band tones in an `inband` call (and when the agent offered no telephone-event).
 *
 * Sockets are `node:dgram` (the RTP one in the Worker the calls share, `./rtp_socket.ts`,
 * which stamps each datagram's arrival): on 127.0.0.1 for a loopback agent; otherwise on every
 * interface, advertising this machine's first external IPv4 address (asking for it needs
 * the permission to read the network interfaces, which the CLI's `cli` and `install`
 * tasks grant). The participant's settings in the record name the codec agreed.
 *
 * @module
 */
import dgram from "node:dgram";
import { openRtpSocket, type RtpSocket } from "./rtp_socket.ts";
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Participant,
  ParticipantError,
  type ParticipantInfo,
} from "../bridge/call.ts";
import type { Side } from "../domains/domain.ts";
import { type Pcm16, pcm16 } from "../audio/pcm.ts";
import { callerWords, monoAtGivingWay, sayHeardTurn } from "./phone_voice.ts";
import { Vad } from "../audio/vad.ts";
import { dtmfTones } from "../audio/dtmf.ts";
import { alawDecode, alawEncode } from "../audio/alaw.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import {
  formatNameAddr,
  formatSipUri,
  formatVia,
  headerValue,
  newBranch,
  newCallId,
  newTag,
  parseCSeq,
  parseNameAddr,
  parseSip,
  parseSipUri,
  responseTo,
  serializeSip,
  type SipHeader,
  type SipRequest,
  type SipResponse,
  type SipUri,
  tagOf,
} from "../protocol/sip.ts";
import {
  buildSdp,
  DEFAULT_TELEPHONE_EVENT_PT,
  type G711Codec,
  negotiatedFromAnswer,
  type NegotiatedMedia,
} from "../protocol/sdp.ts";
import type { SttProvider, TtsProvider } from "../speech/speech.ts";
import type { RemoteSpeech } from "./mapping.ts";
import { SIP_RATE, SipCall, type SipCallStats, type SipHeardTurn } from "./sip_call.ts";
import {
  infoKeyBody,
  infoKeyOf,
  isInfoKeyType,
  isIpv4,
  KEEPALIVE_PONG,
  keepAliveOf,
  nextHop,
  routeHeaders,
  routeSetOf,
  stampVia,
} from "./sip_dialog.ts";
import { parseSdp } from "../protocol/sdp.ts";

/** RFC 3261's round-trip estimate, ms. */
export const SIP_T1_MS = 500;
/** The longest retransmit interval, ms. */
export const SIP_T2_MS = 4000;
/** Header that carries the call's MCP tools endpoint (`eval --tools-server`). */
export const TOOLS_HEADER = "X-Callbench-Tools";
/** Statuses that say our request was at fault: `protocol_error`, not `agent_unreachable`. */
const OUR_FAULT = new Set([400, 415, 488, 606]);
/** The methods we take in a call. */
const ALLOW = "INVITE, ACK, BYE, OPTIONS, INFO";

/** How a SIP agent is dialled. */
export interface SipParticipantOptions {
  /** `sip:USER@HOST[:PORT][;transport=udp]`. */
  uri: string;
  side?: Side;
  /** Speech for a text call (the caller's words synthesized) and the agent's words (STT). */
  speech?: RemoteSpeech;
  /** Codecs offered, in order (default PCMU, PCMA). */
  codecs?: readonly G711Codec[];
  /** T1, ms (default 500); the INVITE is given up after 64 × T1. */
  t1Ms?: number;
  /** How long to wait for the final answer once the agent rings (default 30 s). */
  ringTimeoutMs?: number;
  /** The address a non-loopback agent reaches us at (default: the first external IPv4). */
  localAddress?: string;
  /** How the caller's keys go: RFC 4733 events (default), or SIP INFO where the agent allows it. */
  dtmf?: "event" | "info";
}

/** How long the caller holds a key sent as SIP INFO, ms. */
const INFO_KEY_MS = 160;
/** While the agent holds the call, the line is kept active this often, ms. */
const HOLD_TICK_MS = 1000;

/** The first external IPv4 address of this machine, when the permissions allow asking. */
function outwardAddress(): string | undefined {
  try {
    return Deno.networkInterfaces().find((i) =>
      i.family === "IPv4" && !i.address.startsWith("127.")
    )?.address;
  } catch {
    return undefined;
  }
}

/** Whether `spec` names a SIP agent. */
export function isSipUri(spec: string): boolean {
  return /^sips?:/i.test(spec);
}

/** Reads `--agent sip:...`: the URI, or a message saying what is wrong with it. */
export function parseSipAgent(
  spec: string,
): { ok: true; uri: SipUri } | { ok: false; message: string } {
  const uri = parseSipUri(spec);
  if (!uri) return { ok: false, message: `"${spec}" is not a SIP URI (sip:USER@HOST[:PORT])` };
  if (uri.scheme !== "sip") return { ok: false, message: "sips: (SIP over TLS) is not supported" };
  const transport = uri.params.transport?.toLowerCase() ?? "udp";
  if (transport !== "udp") {
    return { ok: false, message: `transport=${transport} is not supported (UDP only)` };
  }
  return { ok: true, uri };
}

interface Dialog {
  callId: string;
  fromTag: string;
  toTag?: string;
  /** The agent's To (with its tag) and our From, as sent. */
  from: string;
  to: string;
  /** Where in-dialog requests go (the agent's Contact, else its URI). */
  target: string;
  remote: { address: string; port: number };
  cseq: number;
  /** The 200 OK's Record-Route, reversed (RFC 3261 §12.1.2). */
  routeSet: string[];
  /** Whether the agent's Allow names INFO. */
  allowsInfo: boolean;
}

/** A phone agent behind a SIP user agent. */
export class SipParticipant implements Participant {
  readonly #o: SipParticipantOptions;
  readonly #uri: SipUri;
  readonly #shown: string;
  #line?: CallLine;
  #sip?: dgram.Socket;
  #rtp?: RtpSocket;
  #local = { address: "127.0.0.1", sipPort: 0, rtpPort: 0 };
  #advertised = "127.0.0.1";
  #dialog?: Dialog;
  #media?: NegotiatedMedia;
  #call?: SipCall;
  #vad?: Vad;
  #tts?: TtsProvider;
  #ownTts = false;
  #speaking: Promise<void> = Promise.resolve();
  #turns: Promise<void> = Promise.resolve();
  /** The INVITE transaction in progress: its branch and how it settles. */
  #invite?: {
    branch: string;
    text: string;
    resolve: () => void;
    reject: (e: ParticipantError) => void;
    stop: () => void;
  };
  /** Our BYE waiting for its 200. */
  #bye?: { branch: string; done: () => void };
  #toolsUrl?: string;
  #ended = false;
  #closing = false;
  #failed = false;
  #byeSent = false;
  #byeDone: Promise<void> = Promise.resolve();
  #agentHungUp = false;
  #lastAck?: string;
  /** The addresses the agent speaks from: its URI's, its Contact's, its first route's. */
  readonly #agentAddresses = new Set<string>();
  #foreignSip = 0;
  /** The agent's last re-INVITE (its CSeq) and our answer, resent on a retransmission. */
  #reinvite?: { cseq: string; answer: string };
  #sdpVersion = 1;
  #sessionId = Math.floor(Math.random() * 1e9);
  #held = false;
  #cancelHoldTick = () => {};
  /** Keys going as SIP INFO, one transaction after the other. */
  #infoKeys: Promise<void> = Promise.resolve();
  #info?: { cseq: number; done: () => void };

  constructor(options: SipParticipantOptions) {
    this.#o = options;
    const read = parseSipAgent(options.uri);
    if (!read.ok) throw new ParticipantError("agent_unreachable", read.message);
    this.#uri = read.uri;
    this.#shown = formatSipUri({ ...read.uri, params: {} });
  }

  get #side(): Side {
    return this.#o.side ?? "agent";
  }

  /** How the record describes it: the wire, the codec agreed, its STT. */
  get info(): ParticipantInfo {
    const stt = this.#stt();
    return {
      kind: "remote",
      url: this.#shown,
      settings: {
        framing: "sip",
        ...(this.#media ? { codec: this.#media.codec } : {}),
        stt: stt?.info.provider ?? "none",
        ...(stt ? {} : { words_unknown: true }),
      },
    };
  }

  #stt(): SttProvider | undefined {
    return this.#o.speech?.stt ?? this.#line?.audio?.stt;
  }

  /** The RTP stream's counters (after the call began). */
  get stats(): SipCallStats | undefined {
    return this.#call?.stats;
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#vad = await Vad.create({ sampleRate: SIP_RATE, frameMs: 20 });
    this.#tts = this.#o.speech?.tts;
    if (!this.#tts && !line.audio) {
      const { FliteTts } = await import("../speech/tts_flite.ts");
      this.#tts = new FliteTts({ voice: "kal" });
      this.#ownTts = true;
    }
    const host = this.#uri.host === "localhost" ? "127.0.0.1" : this.#uri.host;
    const loopback = host.startsWith("127.");
    // What we advertise (Via, Contact, SDP): loopback for a loopback agent, else this
    // machine's address on the way out, which the option gives or the interfaces tell.
    const advertised = loopback ? "127.0.0.1" : this.#o.localAddress ?? outwardAddress();
    if (!advertised) {
      throw new ParticipantError(
        "agent_unreachable",
        `cannot tell this machine's address to dial ${this.#shown}: the process may not read its network interfaces`,
      );
    }
    this.#advertised = advertised;
    this.#local.address = loopback ? "127.0.0.1" : "0.0.0.0";
    this.#sip = await bind(this.#local.address);
    this.#rtp = await openRtpSocket(this.#local.address, {
      message: (bytes, from, atMs) =>
        this.#call?.receive(bytes, from, line.clock.now() - (performance.now() - atMs)),
      error: (message) => this.#fail(new ParticipantError("agent_disconnected", message)),
    });
    this.#local.sipPort = this.#sip.address().port;
    this.#local.rtpPort = this.#rtp.port;
    this.#agentAddresses.add(host);
    this.#sip.on("message", (msg, rinfo) => {
      try {
        this.#onSip(new Uint8Array(msg), { address: rinfo.address, port: rinfo.port });
      } catch (e) {
        // Nothing escapes the socket's handler: a message we could not handle is the agent's fault.
        this.#protocolError(
          `sent a SIP message callbench could not handle (${(e as Error).message})`,
        );
      }
    });
    this.#sip.on("error", () => {});
    if (setup.tools_server) this.#toolsUrl = setup.tools_server.url;

    const fromTag = newTag();
    const callId = newCallId(advertised);
    const agentUri = formatSipUri({ ...this.#uri, params: {} });
    const from = formatNameAddr({
      display: "callbench",
      uri: `sip:callbench@${advertised}:${this.#local.sipPort}`,
      params: { tag: fromTag },
    });
    const to = formatNameAddr({ uri: agentUri, params: {} });
    this.#dialog = {
      callId,
      fromTag,
      from,
      to,
      target: agentUri,
      remote: { address: host, port: this.#uri.port ?? 5060 },
      cseq: 1,
      routeSet: [],
      allowsInfo: false,
    };
    const offer = buildSdp({
      address: advertised,
      port: this.#local.rtpPort,
      codecs: this.#o.codecs ?? ["PCMU", "PCMA"],
      telephoneEvent: DEFAULT_TELEPHONE_EVENT_PT,
      sessionId: this.#sessionId,
    });
    const branch = newBranch();
    const invite: SipRequest = {
      kind: "request",
      method: "INVITE",
      uri: agentUri,
      headers: [
        ...this.#baseHeaders(branch, "INVITE", 1),
        ["Contact", `<sip:callbench@${advertised}:${this.#local.sipPort}>`],
        ["Content-Type", "application/sdp"],
        ["Allow", ALLOW],
        ["Subject", setup.scenario],
        ...(this.#toolsUrl ? [[TOOLS_HEADER, this.#toolsUrl] as SipHeader] : []),
      ],
      body: offer,
    };
    const answered = new Promise<void>((resolve, reject) => {
      const text = serializeSip(invite);
      this.#invite = { branch, text, resolve, reject, stop: () => {} };
      this.#retransmitInvite(text, line);
    });
    try {
      await answered;
    } finally {
      this.#invite?.stop();
      this.#invite = undefined;
    }
    const media = this.#media!;
    this.#call = new SipCall({
      clock: line.clock,
      media,
      ssrc: (Math.random() * 2 ** 32) >>> 0,
      sequence: Math.floor(Math.random() * 0x10000),
      timestamp: (Math.random() * 2 ** 32) >>> 0,
      send: (packet, to) => this.#rtp?.send(packet, to.port, to.address),
      agentAddresses: [...this.#agentAddresses],
      localAddress: this.#local.address,
      onForeign: (from, count) =>
        line.trace({
          type: "sip_foreign",
          wire: "rtp",
          from: `${from.address}:${from.port}`,
          count,
        }),
      vad: this.#vad,
      onSpeechStart: (atMs) => {
        line.trace({ type: "agent_speech_start", at: atMs });
        line.startedSpeaking?.();
      },
      onSpeaking: () => line.active?.(),
      onTurn: (turn) => {
        this.#turns = this.#turns.then(() => this.#heard(turn));
      },
      onKey: (key, how, atMs) => line.press(key, { inAudio: how === "tone", atMs }),
      ...(line.audio?.inband ? { inbandKeys: true } : {}),
      ...(line.audio?.fill ? { fill: line.audio.fill } : {}),
      onBound: (what) =>
        this.#fail(
          new ParticipantError(
            "protocol_error",
            `the ${this.#side} at ${this.#shown}: ${this.#side} ${what}`,
          ),
        ),
    });
  }

  #baseHeaders(branch: string, method: string, cseq: number): SipHeader[] {
    const d = this.#dialog!;
    return [
      [
        "Via",
        formatVia({
          transport: "UDP",
          host: this.#advertised,
          port: this.#local.sipPort,
          params: { branch, rport: "" },
        }),
      ],
      ["Max-Forwards", "70"],
      ["From", d.from],
      ["To", d.toTag ? `${d.to};tag=${d.toTag}` : d.to],
      ["Call-ID", d.callId],
      ["CSeq", `${cseq} ${method}`],
      ["User-Agent", "callbench"],
      // In the dialog (not the INVITE nor its non-2xx ACK), the route set.
      ...(method === "INVITE" || !d.toTag ? [] : routeHeaders(d.routeSet)),
    ];
  }

  /** Sends the INVITE on timer A until a response; gives up on timer B (64 × T1). */
  #retransmitInvite(text: string, line: CallLine): void {
    const t1 = this.#o.t1Ms ?? SIP_T1_MS;
    let interval = t1;
    let cancel = () => {};
    const send = () => this.#sendSip(text);
    const tick = () => {
      send();
      cancel = line.clock.timer(interval, tick);
      interval = Math.min(interval * 2, SIP_T2_MS);
    };
    tick();
    const cancelB = line.clock.timer(64 * t1, () => {
      this.#invite?.reject(
        new ParticipantError(
          "agent_unreachable",
          `the ${this.#side} at ${this.#shown} did not answer the INVITE in ${(64 * t1) / 1000} s`,
        ),
      );
    });
    this.#invite!.stop = () => {
      cancel();
      cancelB();
    };
    // A response stops retransmits; a provisional one also stops timer B in favour of the ring timeout.
    const stopRetransmits = () => cancel();
    this.#onProvisional = () => {
      stopRetransmits();
      cancelB();
      const ring = line.clock.timer(this.#o.ringTimeoutMs ?? 30_000, () =>
        this.#invite?.reject(
          new ParticipantError(
            "agent_unreachable",
            `the ${this.#side} at ${this.#shown} rang but did not answer in ${
              (this.#o.ringTimeoutMs ?? 30_000) / 1000
            } s`,
          ),
        ));
      const stop = this.#invite!.stop;
      this.#invite!.stop = () => {
        stop();
        ring();
      };
      this.#onProvisional = () => {};
    };
  }

  #onProvisional: () => void = () => {};

  #sendSip(text: string, to = this.#dialog?.remote): void {
    if (!to || !this.#sip) return;
    try {
      this.#sip.send(new TextEncoder().encode(text), to.port, to.address);
    } catch {
      // The socket is closed: the call is over.
    }
  }

  #onSip(bytes: Uint8Array, from: { address: string; port: number }): void {
    // A datagram from elsewhere is a third party's, whatever it holds. An agent dialled by
    // name (not an address) speaks from where its first answer to our INVITE comes from.
    if (!this.#agentAddresses.has(from.address) && !this.#learnAgentAddress(bytes, from)) {
      return this.#foreign(from);
    }
    // A CRLF keep-alive (RFC 5626 §3.5.1): a ping gets a pong.
    const alive = keepAliveOf(bytes);
    if (alive === "ping") return this.#sendBytes(KEEPALIVE_PONG, from);
    if (alive === "pong") return;
    const read = parseSip(bytes);
    if (!read.ok) {
      return this.#protocolError(
        `sent a SIP message callbench cannot read (${read.error.code}: ${read.error.message})`,
      );
    }
    const m = read.message;
    const d = this.#dialog;
    if (!d || headerValue(m, "Call-ID") !== d.callId) return this.#foreign(from); // not this call's
    if (m.kind === "response") return this.#onResponse(m);
    return this.#onRequest(stampVia(m, from), from);
  }

  #learnAgentAddress(bytes: Uint8Array, from: { address: string; port: number }): boolean {
    if (isIpv4(this.#uri.host) || this.#uri.host === "localhost" || this.#dialog?.toTag) {
      return false;
    }
    const read = parseSip(bytes);
    if (!read.ok || read.message.kind !== "response") return false;
    if (headerValue(read.message, "Call-ID") !== this.#dialog?.callId) return false;
    this.#agentAddresses.add(from.address);
    return true;
  }

  /** Counted and traced (the first, then every 100th): never the agent's fault. */
  #foreign(from: { address: string; port: number }): void {
    const n = ++this.#foreignSip;
    if (n === 1 || n % 100 === 0) {
      this.#line?.trace({
        type: "sip_foreign",
        wire: "sip",
        from: `${from.address}:${from.port}`,
        count: n,
      });
    }
  }

  #onResponse(r: SipResponse): void {
    const cseq = parseCSeq(headerValue(r, "CSeq") ?? "");
    if (!cseq) return;
    if (cseq.method === "BYE") {
      if (r.status >= 200) this.#bye?.done();
      return;
    }
    if (cseq.method === "INFO") {
      if (r.status >= 200 && this.#info?.cseq === cseq.seq) this.#info.done();
      return;
    }
    if (cseq.method !== "INVITE") return;
    const d = this.#dialog!;
    if (r.status < 200) return this.#onProvisional();
    if (r.status >= 300) {
      // A final non-2xx is ACKed in its transaction (same branch), then the trial ends.
      const branch = this.#invite?.branch ?? newBranch();
      d.toTag = tagOf(headerValue(r, "To"));
      this.#sendSip(serializeSip({
        kind: "request",
        method: "ACK",
        uri: formatSipUri({ ...this.#uri, params: {} }),
        headers: this.#baseHeaders(branch, "ACK", 1),
        body: "",
      }));
      const kind = OUR_FAULT.has(r.status) ? "protocol_error" : "agent_unreachable";
      const error = new ParticipantError(
        kind,
        `the ${this.#side} at ${this.#shown} answered the INVITE with ${r.status} ${r.reason}`
          .trim(),
      );
      if (this.#invite) this.#invite.reject(error);
      return;
    }
    // 2xx: the dialog is up; ACK it (again, for a retransmitted 200).
    if (this.#lastAck) return this.#sendSip(this.#lastAck);
    d.toTag = tagOf(headerValue(r, "To"));
    d.allowsInfo = /(^|[\s,])INFO([\s,]|$)/i.test(headerValue(r, "Allow") ?? "");
    const contact = parseNameAddr(headerValue(r, "Contact") ?? "");
    const target = contact ? parseSipUri(contact.uri) : undefined;
    if (contact && target) {
      d.target = contact.uri;
      this.#agentAddresses.add(target.host);
      if (target.host.startsWith("127.") || target.host === this.#uri.host) {
        d.remote = { address: target.host, port: target.port ?? 5060 };
      }
    }
    // Behind proxies that record the route, the dialog's requests go through them.
    d.routeSet = routeSetOf(r, "uac");
    if (d.routeSet.length > 0) {
      const hop = nextHop(d.routeSet, d.remote);
      if (hop) {
        d.remote = hop;
        this.#agentAddresses.add(hop.address);
      }
    }
    this.#lastAck = serializeSip({
      kind: "request",
      method: "ACK",
      uri: d.target,
      headers: this.#baseHeaders(newBranch(), "ACK", 1),
      body: "",
    });
    this.#sendSip(this.#lastAck);
    const media = negotiatedFromAnswer(r.body, this.#o.codecs ?? ["PCMU", "PCMA"]);
    if (!media.ok) {
      this.#sendBye();
      this.#invite?.reject(
        new ParticipantError(
          "protocol_error",
          `the ${this.#side} at ${this.#shown} answered with SDP callbench cannot use (${media.error.code}: ${media.error.message})`,
        ),
      );
      return;
    }
    this.#media = media.media;
    this.#invite?.resolve();
  }

  #onRequest(req: SipRequest, from: { address: string; port: number }): void {
    const reply = (status: number, reason: string, headers: SipHeader[] = []) =>
      this.#sendSip(serializeSip(responseTo(req, status, reason, { headers })), from);
    const d = this.#dialog!;
    // A request of the dialog carries its tags: ours in To, the agent's in From.
    const inDialog = tagOf(headerValue(req, "To")) === d.fromTag &&
      d.toTag !== undefined && tagOf(headerValue(req, "From")) === d.toTag;
    switch (req.method) {
      case "ACK":
        return;
      case "OPTIONS":
        return reply(200, "OK", [["Allow", ALLOW]]);
      case "INVITE":
        if (!inDialog || !this.#call) return reply(481, "Call/Transaction Does Not Exist");
        return this.#onReinvite(req, from);
      case "INFO": {
        if (!inDialog) return reply(481, "Call/Transaction Does Not Exist");
        if (req.body.trim() !== "" && !isInfoKeyType(req)) {
          return reply(415, "Unsupported Media Type", [
            ["Accept", "application/dtmf-relay, application/dtmf"],
          ]);
        }
        reply(200, "OK");
        const key = infoKeyOf(req);
        if (key !== undefined) this.#call?.heardKey(key, "event");
        return;
      }
      case "BYE": {
        if (!inDialog) return reply(481, "Call/Transaction Does Not Exist");
        reply(200, "OK");
        this.#cancelHoldTick();
        if (this.#ended || this.#closing) return;
        this.#ended = true;
        this.#agentHungUp = true;
        this.#call?.end();
        // Its last turn is said first.
        void this.#turns.then(() =>
          this.#line?.hangUp(`the ${this.#side} hung up (BYE)`, { agentEnd: true })
        );
        return;
      }
      default:
        return reply(501, "Not Implemented");
    }
  }

  /**
   * The agent's re-INVITE: hold (`sendonly`/`inactive`: we answer `recvonly`/`inactive`
   * and send no audio), resume (`sendrecv`), or a new address. A retransmission gets the
   * same answer. A held call is traced and kept active: its silence is not the agent's.
   */
  #onReinvite(req: SipRequest, from: { address: string; port: number }): void {
    const cseq = headerValue(req, "CSeq") ?? "";
    if (this.#reinvite?.cseq === cseq) return this.#sendSip(this.#reinvite.answer, from);
    let direction: "sendrecv" | "sendonly" | "recvonly" | "inactive" = "sendrecv";
    if (req.body.trim() !== "") {
      const offer = parseSdp(req.body);
      if (!offer.ok) {
        return this.#sendSip(
          serializeSip(responseTo(req, 488, "Not Acceptable Here")),
          from,
        );
      }
      const audio = offer.sdp.audio;
      direction = audio.direction;
      this.#call!.reoffer({
        sending: direction === "sendrecv" || direction === "recvonly",
        address: audio.address,
        port: audio.port,
      });
    }
    const mirrored = ({
      sendrecv: "sendrecv",
      sendonly: "recvonly",
      recvonly: "sendonly",
      inactive: "inactive",
    } as const)[direction];
    const sdp = buildSdp({
      address: this.#advertised,
      port: this.#local.rtpPort,
      codecs: [this.#media!.codec],
      ...(this.#media!.telephoneEvent !== undefined
        ? { telephoneEvent: this.#media!.telephoneEvent }
        : {}),
      sessionId: this.#sessionId,
      version: ++this.#sdpVersion,
    });
    const answer = serializeSip(responseTo(req, 200, "OK", {
      headers: [
        ["Contact", `<sip:callbench@${this.#advertised}:${this.#local.sipPort}>`],
        ["Allow", ALLOW],
        ["Content-Type", "application/sdp"],
      ],
      body: mirrored === "sendrecv"
        ? sdp
        : sdp.replace("\r\na=sendrecv\r\n", `\r\na=${mirrored}\r\n`),
    }));
    this.#reinvite = { cseq, answer };
    this.#sendSip(answer, from);
    const held = direction === "sendonly" || direction === "inactive";
    if (held === this.#held) return;
    this.#held = held;
    const line = this.#line!;
    line.trace({ type: "sip_hold", held, direction, at: line.clock.now() });
    this.#cancelHoldTick();
    if (!held) return;
    // On hold the line is quiet because the agent asked it to be: not its silence.
    const tick = () => {
      line.active?.();
      this.#cancelHoldTick = line.clock.timer(HOLD_TICK_MS, tick);
    };
    tick();
  }

  #sendBytes(bytes: Uint8Array, to: { address: string; port: number }): void {
    try {
      this.#sip?.send(bytes, to.port, to.address);
    } catch {
      // The socket is closed: the call is over.
    }
  }

  /** The caller's keys as SIP INFO, one transaction a key, each retransmitted on T1 until answered. */
  #sendInfoKeys(keys: string): void {
    for (const key of keys) {
      this.#infoKeys = this.#infoKeys.then(() => this.#sendInfoKey(key));
    }
  }

  #sendInfoKey(key: string): Promise<void> {
    const d = this.#dialog;
    const line = this.#line;
    if (!d || !line || this.#ended || this.#closing) return Promise.resolve();
    const cseq = ++d.cseq;
    const text = serializeSip({
      kind: "request",
      method: "INFO",
      uri: d.target,
      headers: [
        ...this.#baseHeaders(newBranch(), "INFO", cseq),
        ["Content-Type", "application/dtmf-relay"],
      ],
      body: infoKeyBody(key, INFO_KEY_MS),
    });
    return new Promise<void>((resolve) => {
      let tries = 0;
      let cancel = () => {};
      const done = () => {
        cancel();
        this.#info = undefined;
        // A key press lasts its duration; the next one follows after a gap.
        line.clock.timer(INFO_KEY_MS + 100, resolve);
      };
      this.#info = { cseq, done };
      const tick = () => {
        if (tries++ >= 4 || this.#ended) return done();
        this.#sendSip(text);
        cancel = line.clock.timer((this.#o.t1Ms ?? SIP_T1_MS) * 2 ** (tries - 1), tick);
      };
      tick();
    });
  }

  onEvent(event: CallEvent): void {
    const call = this.#call;
    if (!call) return;
    switch (event.type) {
      case "call_start":
        return call.begin();
      case "speech_start": {
        const { audio, utterance } = event;
        if (audio) this.#speaking = this.#speaking.then(() => this.#play(audio, utterance));
        return;
      }
      case "speech": {
        if (this.#line?.audio) return;
        const text = event.text;
        this.#speaking = this.#speaking.then(() => this.#say(text));
        return;
      }
      case "dtmf":
        if (this.#line?.audio?.inband) return; // heard as tones (`tone_start`)
        if ((this.#o.dtmf === "info" || this.#line?.audio?.info) && this.#dialog?.allowsInfo) {
          return this.#sendInfoKeys(event.keys);
        }
        if (call.canSendEvents) return call.press(event.keys);
        // The agent took no telephone-event: the keys go as tones in the audio.
        this.#speaking = this.#speaking.then(() =>
          this.#play(pcm16(dtmfTones(event.keys, { sampleRate: SIP_RATE }), SIP_RATE))
        );
        return;
      case "tone_start":
        this.#speaking = this.#speaking.then(() => this.#play(event.audio));
        return;
      case "hangup":
        this.#ended = true;
        this.#cancelHoldTick();
        call.end();
        void this.#sendBye();
        return;
      default:
        return;
    }
  }

  /** Our BYE, retransmitted on T1 until its answer (at most 4 times). */
  #sendBye(): Promise<void> {
    const d = this.#dialog;
    if (this.#byeSent) return this.#byeDone;
    if (!d || !d.toTag || this.#agentHungUp || !this.#line) return Promise.resolve();
    this.#byeSent = true;
    const branch = newBranch();
    d.cseq++;
    const text = serializeSip({
      kind: "request",
      method: "BYE",
      uri: d.target,
      headers: this.#baseHeaders(branch, "BYE", d.cseq),
      body: "",
    });
    const clock = this.#line.clock;
    this.#byeDone = new Promise<void>((resolve) => {
      let tries = 0;
      let cancel = () => {};
      const done = () => {
        cancel();
        this.#bye = undefined;
        resolve();
      };
      this.#bye = { branch, done };
      const tick = () => {
        if (tries++ >= 4) return done();
        this.#sendSip(text);
        cancel = clock.timer((this.#o.t1Ms ?? SIP_T1_MS) * 2 ** (tries - 1), tick);
      };
      tick();
    });
    return this.#byeDone;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#cancelHoldTick();
    this.#call?.end();
    if (this.#call) this.#line?.trace({ type: "sip_rtp", ...this.#call.stats });
    this.#invite?.stop();
    await this.#sendBye();
    this.#rtp?.close();
    try {
      this.#sip?.close();
    } catch {
      // already closed
    }
    this.#sip = this.#rtp = undefined;
    this.#vad?.free();
    if (this.#ownTts) await this.#tts?.close();
  }

  async #say(text: string): Promise<void> {
    const audio = await callerWords(this.#tts!, text, this.#o.speech?.voice);
    if (audio instanceof ParticipantError) return this.#fail(audio);
    await this.#play(audio);
  }

  /**
   * Streams the caller's audio (any rate) at 8 kHz; resolves once it is sent. `utterance`:
   * the other end's utterance it is (its number), reported sent.
   */
  async #play(audio: Pcm16, utterance?: number): Promise<void> {
    const samples = await monoAtGivingWay(audio, SIP_RATE);
    const pcma = this.#media?.codec === "PCMA";
    // The record measures the caller's speech on what went out: 8 kHz G.711.
    const onSent = utterance !== undefined
      ? (at: number, grid: number) =>
        this.#line?.audioSent?.(
          utterance,
          at,
          pcm16(
            pcma ? alawDecode(alawEncode(samples)) : mulawDecode(mulawEncode(samples)),
            SIP_RATE,
          ),
          grid,
        )
      : undefined;
    await this.#call?.speak(samples, onSent);
  }

  async #heard(turn: SipHeardTurn): Promise<void> {
    await sayHeardTurn(this.#line!, this.#stt(), turn, SIP_RATE);
  }

  #protocolError(what: string): void {
    const error = new ParticipantError(
      "protocol_error",
      `the ${this.#side} at ${this.#shown} ${what}`,
    );
    if (this.#invite) return this.#invite.reject(error);
    this.#fail(error);
  }

  #fail(error: ParticipantError): void {
    if (this.#failed || this.#closing) return;
    this.#failed = true;
    this.#line?.fail(error);
  }
}

function bind(address: string): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket("udp4");
    s.once("error", reject);
    s.bind(0, address, () => {
      s.off("error", reject);
      resolve(s);
    });
  });
}
