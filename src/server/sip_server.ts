/**
 * `serve --sip PORT`: a SIP user agent server on UDP (`node:dgram`) that answers calls
 * with the built-in participants, so an outbound-calling agent or a PBX can call
 * callbench. Each call is an audio session (src/server/sip_session.ts) over its own RTP
 * socket (src/server/sip_media.ts).
 *
 * - **INVITE** gets `100 Trying`, then `200 OK` with the SDP answer (PCMU or PCMA at
 *   8 kHz, 20 ms, and telephone-event when offered), retransmitted until its ACK; an
 *   offer without a common codec gets `488`, an unknown participant or scenario `404`,
 *   a full server `486`, a request that cannot be read but can be answered `400`.
 *   A retransmitted INVITE gets the same answer again; a re-INVITE in the dialog gets
 *   the answer to its offer (hold: `recvonly`, and no RTP is sent until resumed).
 * - The participant is the Request-URI's user part (`sip:flow@HOST:PORT`, `navigator`,
 *   `oracle`, `noop`, `scripted`, `llm`; `callbench` or none: the default agent), the
 *   scenario its `;scenario=NAME` parameter or the `X-Callbench-Scenario` header.
 * - **BYE** from the far end gets `200` and ends the call; a BYE for no dialog gets
 *   `481`. The session ending the call sends our BYE, retransmitted until answered.
 *   `CANCEL` of an INVITE not yet answered ends it with `487`; `OPTIONS` gets `200`;
 *   other methods `405`.
 * - With a tools server, `200 OK` carries the call's MCP endpoint in `X-Callbench-Tools`.
 *
 * Nothing a datagram holds can throw out of the socket's handler: a message that does not
 * parse is answered `400` when its headers allow an answer, else dropped (and counted).
 *
 * @module
 */
import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import type { Clock } from "../bridge/call.ts";
import { RealClock } from "../clock/clock.ts";
import type { Side } from "../domains/domain.ts";
import type { Scenario } from "../scenario/scenario.ts";
import type { HostedParticipantFactory, SessionOptions } from "./session.ts";
import type { SessionAudioOptions } from "./session_audio.ts";
import { type SipCallWorld, SipHostedCall } from "./sip_session.ts";
import { answerOffer, type NegotiatedMedia, SipMedia } from "./sip_media.ts";
import { parseSdp } from "../protocol/sdp.ts";
import {
  formatSipRequest,
  formatSipResponse,
  readSip,
  type SipHeaders,
  type SipRequest,
} from "./sip_wire.ts";
import {
  infoKeyOf,
  isInfoKeyType,
  KEEPALIVE_PONG,
  keepAliveOf,
  nextHop,
  recordRouteHeaders,
  routeHeaders,
  routeSetOf,
} from "../transport/sip_dialog.ts";
import { parseSipUri } from "../protocol/sip.ts";

/** How `serve --sip` answers calls. */
export interface SipServerOptions {
  /** Address of the SIP and RTP sockets (default 127.0.0.1). */
  hostname?: string;
  /** UDP port of SIP (0: a free one). */
  port: number;
  factory: HostedParticipantFactory;
  /** Finds the scenario a call names. */
  lookUp: (name: string) => Promise<Scenario>;
  /**
   * The hosted participant a Request-URI's user part names (`flow`, `user.llm`...);
   * undefined: none that is hosted.
   */
  participantOf: (
    user: string,
  ) => { name: string; side: Side; needsScenario?: boolean } | undefined;
  /** The participant of a call whose Request-URI names none. */
  defaultAgent: string;
  /** Each call's audio (its TTS and STT). */
  audio: () => SessionAudioOptions;
  /** Calls at once; more get 486 (default 100). */
  maxCalls?: number;
  /**
   * Calls answered but not yet ACKed at once (default {@link MAX_UNACKED_CALLS}): a new
   * INVITE past it gives up the oldest, so a flood of INVITEs never ACKed cannot hold
   * the call slots a real caller needs.
   */
  maxUnacked?: number;
  /**
   * Why a participant cannot be hosted now (an llm without its model), checked before the
   * INVITE is answered (`500`); undefined: it can.
   */
  cannotHost?: (participant: { name: string; side: Side }) => string | undefined;
  /** Given to each call's session: data root, limits, tools registry. */
  session?: Omit<SessionOptions, "factory" | "participant" | "audio" | "log" | "clock">;
  /** When set, a call must carry it (`X-Callbench-Token` or `;token=` on the Request-URI). */
  token?: string;
  clock?: Clock;
  /** Each call once it is over (tests, logs). */
  onCallEnded?: (summary: SipCallSummary) => void;
  /** Each key a caller pressed, however it came (tests, logs). */
  onKey?: (callId: string, key: string) => void;
  log?: (line: string) => void;
}

/** What one call was, once it is over. */
export interface SipCallSummary {
  callId: string;
  participant: { name: string; side: Side; scenario?: string };
  codec: "PCMU" | "PCMA";
  /** Who hung up: `far_end` (its BYE or CANCEL), `callbench` (our BYE). */
  ended_by: "far_end" | "callbench";
  packets_sent: number;
  packets_received: number;
  /** Received audio louder than -40 dBFS, ms (20 ms per packet). */
  voicedMsHeard: number;
  /** RTP refused: from elsewhere, of another payload type, out of order. */
  refused: { foreign: number; refused: number; late: number };
  /** Whether the far end put the call on hold at some point (a `sendonly`/`inactive` re-INVITE). */
  held: boolean;
  /** Keys heard, how they came, and the bound the far end passed, if any (it was hung up). */
  keys: number;
  keysBy: { rfc4733: number; info: number; inband: number };
  bound?: string;
  /** The hosted side's world as the call left it (hash and actions), when it had one. */
  world?: SipCallWorld;
}

/** Calls at once by default. */
export const DEFAULT_MAX_SIP_CALLS = 100;
/** Calls answered and not yet ACKed, at once, by default. */
export const MAX_UNACKED_CALLS = 8;
/** How long an answered call waits for its ACK (16 T1: an ACK comes within a round trip). */
export const UNACKED_HOLD_MS = 8000;
/** RFC 3261 T1 and T2 (ms), and how long a transaction is retransmitted (64 T1). */
const T1 = 500;
const T2 = 4000;
const TIMEOUT = 64 * T1;

const ALLOW = "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO";

/** One call: its dialog and its hosted session. */
interface Dialog {
  /** Call-ID and the caller's From tag: the dialog's key (RFC 3261 §12). */
  key: string;
  callId: string;
  /** The caller's tag (From of its INVITE). */
  remoteTag: string;
  /** The Record-Route of the INVITE, in order: our requests' Route (RFC 3261 §12.1.1). */
  routeSet: string[];
  /** Addresses the caller's in-dialog requests may come from: its source's and its Contact's. */
  sources: Set<string>;
  held: boolean;
  bound?: string;
  /** When it was answered, for the unacknowledged budget (oldest goes first). */
  answeredAt?: number;
  /** Our tag (To of the INVITE's answer). */
  localTag: string;
  /** The INVITE's headers we echo and the far end's identity. */
  invite: SipRequest;
  /** The far end's address, for responses and our BYE. */
  peer: { address: string; port: number };
  /** Their From (with their tag) and the URI our in-dialog requests go to. */
  remoteUri: string;
  media?: SipMedia;
  call?: SipHostedCall;
  /** Our last final answer to the INVITE, resent on a retransmission. */
  answer?: string;
  confirmed: boolean;
  cancelRetransmit?: () => void;
  localCseq: number;
  ended: boolean;
  participant?: { name: string; side: Side; scenario?: string };
  endedBy?: "far_end" | "callbench";
  reported?: boolean;
}

/** A running SIP server. */
export class SipServer {
  readonly #o: SipServerOptions;
  readonly #clock: Clock;
  readonly #socket: Socket;
  readonly #dialogs = new Map<string, Dialog>();
  /** Datagrams received. */
  datagrams = 0;
  /** Datagrams that did not parse, and were dropped or answered 400. */
  malformed = 0;
  #port = 0;
  #closed = false;
  #refusals = 20;
  #refusedAt = performance.now();

  private constructor(options: SipServerOptions, socket: Socket) {
    this.#o = options;
    this.#clock = options.clock ?? new RealClock();
    this.#socket = socket;
  }

  /** Binds the SIP socket and answers calls from then on. */
  static async start(options: SipServerOptions): Promise<SipServer> {
    const socket = createSocket("udp4");
    const server = new SipServer(options, socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(options.port, options.hostname ?? "127.0.0.1", () => {
        socket.off("error", reject);
        resolve();
      });
    });
    server.#port = socket.address().port;
    socket.on("message", (data, rinfo) => server.#receive(data, rinfo));
    socket.on("error", (e) => options.log?.(`sip socket: ${e.message}`));
    return server;
  }

  /** The UDP port bound. */
  get port(): number {
    return this.#port;
  }

  /** `sip:callbench@HOST:PORT`: what a caller dials (user part: the participant). */
  get uri(): string {
    return `sip:callbench@${this.#host()}:${this.#port}`;
  }

  /** Calls in progress. */
  get calls(): number {
    let n = 0;
    for (const d of this.#dialogs.values()) if (!d.ended) n++;
    return n;
  }

  /** Ends every call (a BYE each) and closes the socket. */
  async close(): Promise<void> {
    if (this.#closed) return;
    for (const d of this.#dialogs.values()) this.#hangUp(d, "server shutting down");
    await Promise.all([...this.#dialogs.values()].map((d) => d.call?.close()));
    // The BYEs leave before the socket closes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const d of this.#dialogs.values()) this.#forget(d);
    this.#closed = true;
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }

  // ---- receiving --------------------------------------------------------------------

  #receive(data: Uint8Array, rinfo: RemoteInfo): void {
    if (this.#closed) return;
    this.datagrams++;
    try {
      // A CRLF keep-alive (RFC 5626 §3.5.1): a ping is answered with a pong.
      const alive = keepAliveOf(data);
      if (alive === "ping") return this.#sendBytes(KEEPALIVE_PONG, rinfo);
      if (alive === "pong") return;
      const read = readSip(data, { address: rinfo.address, port: rinfo.port });
      if (!read.ok) {
        this.malformed++;
        // Answerable: enough headers to address a 400 to (at most 20 a second, so a
        // flood of junk is not answered in kind).
        if (read.headers && this.#mayRefuse()) {
          this.#send(formatSipResponse(read.headers, 400, "Bad Request"), rinfo);
        }
        return;
      }
      if (read.kind === "response") return this.#onResponse(read.headers, read.status, rinfo);
      void this.#onRequest(read, rinfo).catch((e) => {
        this.#o.log?.(`sip: ${read.method} failed: ${(e as Error)?.message ?? e}`);
      });
    } catch (e) {
      this.malformed++;
      this.#o.log?.(`sip: a datagram could not be handled: ${(e as Error)?.message ?? e}`);
    }
  }

  /**
   * The dialog a request belongs to: its Call-ID and From tag, its To tag (ours, once we
   * answered), and a source the caller speaks from. Another peer that reuses a live
   * call's Call-ID finds none.
   */
  #dialogOf(req: SipRequest, peer: { address: string }): Dialog | undefined {
    const d = this.#dialogs.get(dialogKey(req.headers.callId, req.headers.fromTag));
    if (!d) return undefined;
    const toTag = req.headers.toTag;
    if (toTag !== undefined && toTag !== d.localTag) return undefined;
    if (!d.sources.has(peer.address)) return undefined;
    return d;
  }

  async #onRequest(req: SipRequest, rinfo: RemoteInfo): Promise<void> {
    const peer = { address: rinfo.address, port: rinfo.port };
    const dialog = this.#dialogOf(req, peer);
    const noDialog = () =>
      this.#send(formatSipResponse(req.headers, 481, "Call/Transaction Does Not Exist"), peer);
    switch (req.method) {
      case "INVITE":
        if (dialog) return this.#onReinvite(dialog, req, peer);
        // A To tag names a dialog: one we do not know is none (RFC 3261 §12.2.2).
        if (req.headers.toTag !== undefined) return noDialog();
        // The Call-ID and tag of a call in progress, from elsewhere: not that call's.
        if (this.#dialogs.has(dialogKey(req.headers.callId, req.headers.fromTag))) {
          return noDialog();
        }
        return await this.#onInvite(req, peer);
      case "ACK":
        if (dialog && dialog.answer !== undefined) {
          if (!dialog.confirmed && !dialog.ended) {
            dialog.media?.start();
            void dialog.call?.begin().catch((e) =>
              this.#hangUp(dialog, `the call could not start: ${(e as Error)?.message ?? e}`)
            );
          }
          dialog.confirmed = true;
          dialog.cancelRetransmit?.();
          if (dialog.ended && dialog.call === undefined) this.#forget(dialog);
        }
        return;
      case "BYE":
        if (!dialog || dialog.ended && !dialog.call) return noDialog();
        this.#send(formatSipResponse(req.headers, 200, "OK", { toTag: dialog.localTag }), peer);
        dialog.ended = true;
        dialog.endedBy = "far_end";
        await dialog.call?.farEndHungUp("the far end sent BYE");
        this.#forget(dialog);
        return;
      case "CANCEL":
        if (!dialog || dialog.answer !== undefined) return noDialog();
        this.#send(formatSipResponse(req.headers, 200, "OK", { toTag: dialog.localTag }), peer);
        this.#send(
          formatSipResponse(dialog.invite.headers, 487, "Request Terminated", {
            toTag: dialog.localTag,
          }),
          peer,
        );
        dialog.ended = true;
        dialog.endedBy = "far_end";
        await dialog.call?.close();
        this.#forget(dialog);
        return;
      case "INFO": {
        if (!dialog || dialog.ended || !dialog.confirmed) return noDialog();
        // Keys as SIP INFO (application/dtmf-relay, application/dtmf); an empty INFO is fine.
        if (req.body.trim() !== "" && !isInfoKeyType(req.headers.message)) {
          return this.#send(
            formatSipResponse(req.headers, 415, "Unsupported Media Type", {
              toTag: dialog.localTag,
              extra: { Accept: "application/dtmf-relay, application/dtmf" },
            }),
            peer,
          );
        }
        this.#send(formatSipResponse(req.headers, 200, "OK", { toTag: dialog.localTag }), peer);
        const key = infoKeyOf(req.headers.message);
        if (key !== undefined) dialog.media?.heardKey(key);
        return;
      }
      case "OPTIONS":
        return this.#send(
          formatSipResponse(req.headers, 200, "OK", { extra: { Allow: ALLOW } }),
          peer,
        );
      default:
        return this.#send(
          formatSipResponse(req.headers, 405, "Method Not Allowed", { extra: { Allow: ALLOW } }),
          peer,
        );
    }
  }

  async #onInvite(req: SipRequest, peer: { address: string; port: number }): Promise<void> {
    const refuse = (status: number, reason: string, warning?: string) =>
      this.#send(
        formatSipResponse(req.headers, status, reason, {
          ...(warning
            ? { extra: { Warning: `399 callbench "${warning.replaceAll('"', "'")}"` } }
            : {}),
        }),
        peer,
      );
    this.#send(formatSipResponse(req.headers, 100, "Trying"), peer);
    this.#makeRoomForUnacked();
    if (this.calls >= (this.#o.maxCalls ?? DEFAULT_MAX_SIP_CALLS)) {
      return refuse(486, "Busy Here", "the server has its most calls");
    }
    const choice = this.#choose(req);
    if ("error" in choice) {
      // A 400 counts against the refusals' bucket, as a request that does not parse.
      if (choice.status === 400 && !this.#mayRefuse()) return;
      return refuse(choice.status, choice.reason, choice.error);
    }
    const cannot = this.#o.cannotHost?.(choice);
    if (cannot !== undefined) return refuse(500, "Server Internal Error", cannot);
    const offer = answerOffer(req.body, this.#host());
    if (!offer.ok) return refuse(488, "Not Acceptable Here", offer.error);
    let scenario: Scenario | undefined;
    if (choice.scenario !== undefined) {
      try {
        scenario = await this.#o.lookUp(choice.scenario);
      } catch {
        return refuse(404, "Not Found", `no scenario "${choice.scenario}" here`);
      }
    }
    const contactHost = parseSipUri(req.headers.contact ?? "")?.host;
    const dialog: Dialog = {
      key: dialogKey(req.headers.callId, req.headers.fromTag),
      callId: req.headers.callId,
      remoteTag: req.headers.fromTag ?? "",
      routeSet: routeSetOf(req.headers.message, "uas"),
      sources: new Set([peer.address, ...(contactHost ? [contactHost] : [])]),
      held: false,
      localTag: crypto.getRandomValues(new Uint8Array(6)).toHex(),
      invite: req,
      peer,
      remoteUri: req.headers.contact ?? req.headers.from,
      confirmed: false,
      localCseq: 0,
      ended: false,
    };
    this.#dialogs.set(dialog.key, dialog);
    try {
      await this.#answer(dialog, offer.media, choice, scenario);
    } catch (e) {
      this.#o.log?.(`sip: call ${dialog.callId} could not start: ${(e as Error)?.message ?? e}`);
      if (dialog.answer === undefined) {
        refuse(500, "Server Internal Error", "the call could not start");
        dialog.ended = true;
        await dialog.call?.close();
        this.#forget(dialog);
      } else this.#hangUp(dialog, "the call could not start");
    }
  }

  /** Opens the call's RTP socket and session, answers 200 with the SDP, starts the call. */
  async #answer(
    dialog: Dialog,
    negotiated: NegotiatedMedia,
    choice: { name: string; side: Side },
    scenario: Scenario | undefined,
  ): Promise<void> {
    const log = (line: string) => this.#o.log?.(`sip call ${dialog.callId.slice(0, 12)}: ${line}`);
    const media = await SipMedia.open({
      hostname: this.#o.hostname ?? "127.0.0.1",
      negotiated,
      clock: this.#clock,
      log,
      caller: [...dialog.sources],
    });
    dialog.media = media;
    dialog.participant = { ...choice, ...(scenario ? { scenario: scenario.name } : {}) };
    const call = new SipHostedCall({
      participant: { ...choice, ...(scenario ? { scenario } : {}) },
      factory: this.#o.factory,
      audio: this.#o.audio(),
      media: {
        sendAudio: (samples) => media.sendAudio(samples),
        sendKeys: (keys) => media.sendKeys(keys),
        hangUp: (reason) => this.#hangUp(dialog, reason),
      },
      ...(this.#o.session?.tools ? { tools: this.#o.session.tools } : {}),
      ...(this.#o.session?.dataRoot ? { dataRoot: this.#o.session.dataRoot } : {}),
      session: { ...this.#o.session, tools: undefined, clock: this.#clock },
      log,
    });
    dialog.call = call;
    media.onAudio = (samples) => call.hear(samples);
    media.onKey = (key) => {
      this.#o.onKey?.(dialog.callId, key);
      call.keys(key);
    };
    media.onBound = (what) => {
      dialog.bound = what;
      this.#hangUp(dialog, `the far end ${what}`);
      void call.close();
    };
    await call.prepare();
    if (dialog.ended) return;
    const tools = call.toolsServer;
    const answer = formatSipResponse(dialog.invite.headers, 200, "OK", {
      toTag: dialog.localTag,
      // The proxies that asked to stay on the path see the dialog's requests too.
      headers: recordRouteHeaders(dialog.invite.headers.message),
      extra: {
        Contact: `<sip:callbench@${this.#host()}:${this.#port}>`,
        Allow: ALLOW,
        ...(tools ? { "X-Callbench-Tools": tools.url } : {}),
      },
      body: { type: "application/sdp", text: media.answerSdp(this.#host()) },
    });
    dialog.answer = answer;
    dialog.answeredAt = this.#clock.now();
    // No ACK in UNACKED_HOLD_MS: the call is given up with a BYE (RFC 3261 §13.3.1.4 says
    // 64 T1; an ACK comes within a round trip, and a flood must not hold the slots).
    this.#retransmit(
      dialog,
      answer,
      () => dialog.confirmed || dialog.ended,
      () => this.#hangUp(dialog, "no ACK for the 200 OK"),
      UNACKED_HOLD_MS,
    );
    log(`answered: ${choice.side} ${choice.name}${scenario ? ` playing ${scenario.name}` : ""}`);
  }

  /** A re-INVITE in the dialog (hold, a new offer): the same answer; a retransmission too. */
  #onReinvite(dialog: Dialog, req: SipRequest, peer: { address: string; port: number }): void {
    if (dialog.answer === undefined) {
      return this.#send(formatSipResponse(req.headers, 100, "Trying"), peer);
    }
    if (req.headers.cseq === dialog.invite.headers.cseq && req.headers.toTag === undefined) {
      return this.#send(dialog.answer, peer);
    }
    if (dialog.ended || !dialog.media) {
      return this.#send(
        formatSipResponse(req.headers, 481, "Call/Transaction Does Not Exist"),
        peer,
      );
    }
    if (req.body.trim() !== "") {
      const offer = parseSdp(req.body);
      if (!offer.ok) {
        return this.#send(
          formatSipResponse(req.headers, 488, "Not Acceptable Here", {
            extra: { Warning: `399 callbench "${offer.error.message.replaceAll('"', "'")}"` },
          }),
          peer,
        );
      }
      const audio = offer.sdp.audio;
      dialog.media.reoffer({
        direction: audio.direction,
        address: audio.address,
        port: audio.port,
      });
      if (dialog.media.held) dialog.held = true;
      this.#o.log?.(
        `sip call ${dialog.callId.slice(0, 12)}: re-INVITE ${audio.direction}${
          dialog.media.held ? " (on hold)" : ""
        }`,
      );
    }
    this.#send(
      formatSipResponse(req.headers, 200, "OK", {
        toTag: dialog.localTag,
        extra: { Contact: `<sip:callbench@${this.#host()}:${this.#port}>`, Allow: ALLOW },
        body: { type: "application/sdp", text: dialog.media.answerSdp(this.#host()) },
      }),
      peer,
    );
  }

  #onResponse(headers: SipHeaders, status: number, from: { address: string }): void {
    // Our request's answer: its To tag is the caller's, its From tag ours.
    const dialog = this.#dialogs.get(dialogKey(headers.callId, headers.toTag));
    if (!dialog || dialog.localTag !== headers.fromTag || !dialog.sources.has(from.address)) return;
    if (!headers.cseq.endsWith("BYE") || status < 200) return;
    dialog.cancelRetransmit?.();
    this.#forget(dialog);
  }

  // ---- choosing --------------------------------------------------------------------

  /** The participant and scenario a call asks for, from its Request-URI and headers. */
  #choose(req: SipRequest):
    | { name: string; side: Side; scenario?: string }
    | { error: string; status: number; reason: string } {
    const uri = /^sips?:(?:([^@;?]*)@)?[^;?]*((?:;[^?]*)?)/i.exec(req.uri);
    let user: string;
    let params: Map<string, string>;
    try {
      user = decodeURIComponent(uri?.[1] ?? "");
      params = new Map(
        (uri?.[2] ?? "").split(";").filter(Boolean).map((p) => {
          const [k, v = ""] = p.split("=");
          return [k!.toLowerCase(), decodeURIComponent(v)] as const;
        }),
      );
    } catch {
      return {
        error: "the Request-URI has a malformed %-escape",
        status: 400,
        reason: "Bad Request",
      };
    }
    const token = this.#o.token;
    if (
      token !== undefined && (req.headers.get("x-callbench-token") ?? params.get("token")) !== token
    ) {
      return { error: "missing or wrong token", status: 403, reason: "Forbidden" };
    }
    const asked = user === "" || user === "callbench" ? this.#o.defaultAgent : user;
    const participant = this.#o.participantOf(asked);
    if (!participant) {
      return {
        error: `no participant "${asked}" is hosted here`,
        status: 404,
        reason: "Not Found",
      };
    }
    const scenario = req.headers.get("x-callbench-scenario") ?? params.get("scenario");
    if (participant.needsScenario && !scenario) {
      return {
        error: `${participant.name} plays a scenario: give ;scenario=NAME`,
        status: 404,
        reason: "Not Found",
      };
    }
    return {
      name: participant.name,
      side: participant.side,
      ...(scenario ? { scenario } : {}),
    };
  }

  // ---- sending ---------------------------------------------------------------------

  /** Our BYE, once, retransmitted until answered; the session is freed. */
  #hangUp(dialog: Dialog, reason: string): void {
    if (dialog.ended) return;
    dialog.ended = true;
    dialog.endedBy = "callbench";
    this.#o.log?.(`sip call ${dialog.callId.slice(0, 12)}: hanging up (${reason})`);
    dialog.media?.stop();
    if (dialog.answer === undefined) return this.#forget(dialog);
    const bye = formatSipRequest("BYE", dialog.remoteUri, {
      via: `SIP/2.0/UDP ${this.#host()}:${this.#port};branch=z9hG4bK${
        crypto.getRandomValues(new Uint8Array(8)).toHex()
      };rport`,
      from: withTag(dialog.invite.headers.to, dialog.localTag),
      to: dialog.invite.headers.from,
      callId: dialog.callId,
      cseq: `${++dialog.localCseq} BYE`,
      extra: routeHeaders(dialog.routeSet),
    });
    dialog.cancelRetransmit?.();
    // Through the route set's first proxy, else back where the caller spoke from.
    const to = nextHop(dialog.routeSet, dialog.peer) ?? dialog.peer;
    this.#retransmit(
      dialog,
      bye,
      () => this.#dialogs.get(dialog.key) !== dialog,
      () => this.#forget(dialog),
      TIMEOUT,
      to,
    );
  }

  /** Sends `text` now and again at T1, 2 T1... (at most T2 apart) until `done`, for `timeout` (64 T1). */
  #retransmit(
    dialog: Dialog,
    text: string,
    done: () => boolean,
    gaveUp?: () => void,
    timeout = TIMEOUT,
    to: { address: string; port: number } = dialog.peer,
  ): void {
    let interval = T1;
    let elapsed = 0;
    let cancel = () => {};
    const send = () => {
      if (this.#closed || done()) return;
      this.#send(text, to);
      // Given up at `timeout` exactly (timer H, B), not at the next send after it.
      if (elapsed + interval >= timeout) {
        cancel = this.#clock.timer(timeout - elapsed, () => {
          if (!this.#closed && !done()) gaveUp?.();
        });
        return;
      }
      cancel = this.#clock.timer(interval, send);
      elapsed += interval;
      interval = Math.min(interval * 2, T2);
    };
    dialog.cancelRetransmit = () => cancel();
    send();
  }

  #forget(dialog: Dialog): void {
    dialog.cancelRetransmit?.();
    dialog.media?.close();
    const media = dialog.media;
    if (media && dialog.participant && !dialog.reported) {
      dialog.reported = true;
      const participant = dialog.participant;
      const report = (world: SipCallWorld | undefined) =>
        this.#o.onCallEnded?.({
          callId: dialog.callId,
          participant,
          codec: media.negotiated.codec,
          ended_by: dialog.endedBy ?? "callbench",
          packets_sent: media.counters.sent,
          packets_received: media.counters.received,
          voicedMsHeard: media.counters.voicedMs,
          refused: {
            foreign: media.counters.foreign,
            refused: media.counters.refused,
            late: media.counters.late,
          },
          held: dialog.held,
          keys: media.counters.keys,
          keysBy: { ...media.counters.keysBy },
          ...(dialog.bound ? { bound: dialog.bound } : {}),
          ...(world && world.db_hash !== null ? { world } : {}),
        });
      if (!dialog.call) report(undefined);
      else void dialog.call.finished.then(report);
    }
    if (this.#dialogs.get(dialog.key) === dialog) this.#dialogs.delete(dialog.key);
  }

  /**
   * The unacknowledged budget: with {@link MAX_UNACKED_CALLS} answered calls waiting for
   * their ACK, the oldest is given up for the new INVITE.
   */
  #makeRoomForUnacked(): void {
    const waiting = [...this.#dialogs.values()].filter((d) => !d.ended && !d.confirmed);
    const max = this.#o.maxUnacked ?? MAX_UNACKED_CALLS;
    if (waiting.length < max) return;
    waiting.sort((a, b) => (a.answeredAt ?? Infinity) - (b.answeredAt ?? Infinity));
    for (const d of waiting.slice(0, waiting.length - max + 1)) {
      this.#o.log?.(`sip call ${d.callId.slice(0, 12)}: given up unacknowledged for a new call`);
      d.ended = true;
      d.endedBy = "callbench";
      d.media?.stop();
      void d.call?.close();
      this.#forget(d);
    }
  }

  #send(text: string, to: { address: string; port: number }): void {
    this.#sendBytes(new TextEncoder().encode(text), to);
  }

  #sendBytes(bytes: Uint8Array, to: { address: string; port: number }): void {
    if (this.#closed) return;
    this.#socket.send(bytes, to.port, to.address, (e) => {
      if (e) this.#o.log?.(`sip send failed: ${e.message}`);
    });
  }

  /** A token bucket of 400 answers: 20 at once, then 20 a second. */
  #mayRefuse(): boolean {
    const now = performance.now();
    this.#refusals = Math.min(20, this.#refusals + ((now - this.#refusedAt) * 20) / 1000);
    this.#refusedAt = now;
    if (this.#refusals < 1) return false;
    this.#refusals -= 1;
    return true;
  }

  #host(): string {
    return this.#o.hostname ?? "127.0.0.1";
  }
}

/** A dialog's key: its Call-ID and the caller's tag. */
function dialogKey(callId: string, fromTag: string | undefined): string {
  return `${callId}\n${fromTag ?? ""}`;
}

/** A From/To header value with our tag. */
function withTag(value: string, tag: string): string {
  return /;\s*tag=/i.test(value) ? value : `${value};tag=${tag}`;
}
