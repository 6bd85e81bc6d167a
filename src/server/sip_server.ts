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
  /** Given to each call's session: data root, limits, tools registry. */
  session?: Omit<SessionOptions, "factory" | "participant" | "audio" | "log" | "clock">;
  /** When set, a call must carry it (`X-Callbench-Token` or `;token=` on the Request-URI). */
  token?: string;
  clock?: Clock;
  /** Each call once it is over (tests, logs). */
  onCallEnded?: (summary: SipCallSummary) => void;
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
  /** The hosted side's world as the call left it (hash and actions), when it had one. */
  world?: SipCallWorld;
}

/** Calls at once by default. */
export const DEFAULT_MAX_SIP_CALLS = 100;
/** RFC 3261 T1 and T2 (ms), and how long a transaction is retransmitted (64 T1). */
const T1 = 500;
const T2 = 4000;
const TIMEOUT = 64 * T1;

const ALLOW = "INVITE, ACK, BYE, CANCEL, OPTIONS";

/** One call: its dialog and its hosted session. */
interface Dialog {
  callId: string;
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
    for (const d of this.#dialogs.values()) this.#forget(d);
    this.#closed = true;
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }

  // ---- receiving --------------------------------------------------------------------

  #receive(data: Uint8Array, rinfo: RemoteInfo): void {
    if (this.#closed) return;
    this.datagrams++;
    try {
      const read = readSip(data);
      if (!read.ok) {
        this.malformed++;
        // Answerable: enough headers to address a 400 to (at most 20 a second, so a
        // flood of junk is not answered in kind).
        if (read.headers && this.#mayRefuse()) {
          this.#send(formatSipResponse(read.headers, 400, "Bad Request"), rinfo);
        }
        return;
      }
      if (read.kind === "response") return this.#onResponse(read.headers, read.status);
      void this.#onRequest(read, rinfo).catch((e) => {
        this.#o.log?.(`sip: ${read.method} failed: ${(e as Error)?.message ?? e}`);
      });
    } catch (e) {
      this.malformed++;
      this.#o.log?.(`sip: a datagram could not be handled: ${(e as Error)?.message ?? e}`);
    }
  }

  async #onRequest(req: SipRequest, rinfo: RemoteInfo): Promise<void> {
    const peer = { address: rinfo.address, port: rinfo.port };
    const dialog = this.#dialogs.get(req.headers.callId);
    switch (req.method) {
      case "INVITE":
        if (dialog) return this.#onReinvite(dialog, req, peer);
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
        if (!dialog || dialog.ended && !dialog.call) {
          return this.#send(
            formatSipResponse(req.headers, 481, "Call/Transaction Does Not Exist"),
            peer,
          );
        }
        this.#send(formatSipResponse(req.headers, 200, "OK", { toTag: dialog.localTag }), peer);
        dialog.ended = true;
        dialog.endedBy = "far_end";
        await dialog.call?.farEndHungUp("the far end sent BYE");
        this.#forget(dialog);
        return;
      case "CANCEL":
        if (!dialog || dialog.answer !== undefined) {
          return this.#send(
            formatSipResponse(req.headers, 481, "Call/Transaction Does Not Exist"),
            peer,
          );
        }
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
    if (this.calls >= (this.#o.maxCalls ?? DEFAULT_MAX_SIP_CALLS)) {
      return refuse(486, "Busy Here", "the server has its most calls");
    }
    const choice = this.#choose(req);
    if ("error" in choice) return refuse(choice.status, choice.reason, choice.error);
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
    const dialog: Dialog = {
      callId: req.headers.callId,
      localTag: crypto.getRandomValues(new Uint8Array(6)).toHex(),
      invite: req,
      peer,
      remoteUri: req.headers.contact ?? req.headers.from,
      confirmed: false,
      localCseq: 0,
      ended: false,
    };
    this.#dialogs.set(dialog.callId, dialog);
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
    media.onKey = (key) => call.keys(key);
    await call.prepare();
    if (dialog.ended) return;
    const tools = call.toolsServer;
    const answer = formatSipResponse(dialog.invite.headers, 200, "OK", {
      toTag: dialog.localTag,
      extra: {
        Contact: `<sip:callbench@${this.#host()}:${this.#port}>`,
        Allow: ALLOW,
        ...(tools ? { "X-Callbench-Tools": tools.url } : {}),
      },
      body: { type: "application/sdp", text: media.answerSdp(this.#host()) },
    });
    dialog.answer = answer;
    // No ACK in 64 T1: the call is given up with a BYE (RFC 3261 §13.3.1.4).
    this.#retransmit(
      dialog,
      answer,
      () => dialog.confirmed || dialog.ended,
      () => this.#hangUp(dialog, "no ACK for the 200 OK"),
    );
    log(`answered: ${choice.side} ${choice.name}${scenario ? ` playing ${scenario.name}` : ""}`);
  }

  /** A re-INVITE in the dialog (hold, a new offer): the same answer; a retransmission too. */
  #onReinvite(dialog: Dialog, req: SipRequest, peer: { address: string; port: number }): void {
    if (dialog.answer === undefined) {
      return this.#send(formatSipResponse(req.headers, 100, "Trying"), peer);
    }
    if (req.headers.cseq === dialog.invite.headers.cseq) return this.#send(dialog.answer, peer);
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

  #onResponse(headers: SipHeaders, status: number): void {
    const dialog = this.#dialogs.get(headers.callId);
    if (!dialog || !headers.cseq.endsWith("BYE") || status < 200) return;
    dialog.cancelRetransmit?.();
    this.#forget(dialog);
  }

  // ---- choosing --------------------------------------------------------------------

  /** The participant and scenario a call asks for, from its Request-URI and headers. */
  #choose(req: SipRequest):
    | { name: string; side: Side; scenario?: string }
    | { error: string; status: number; reason: string } {
    const uri = /^sips?:(?:([^@;?]*)@)?[^;?]*((?:;[^?]*)?)/i.exec(req.uri);
    const user = decodeURIComponent(uri?.[1] ?? "");
    const params = new Map(
      (uri?.[2] ?? "").split(";").filter(Boolean).map((p) => {
        const [k, v = ""] = p.split("=");
        return [k!.toLowerCase(), decodeURIComponent(v)] as const;
      }),
    );
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
    });
    dialog.cancelRetransmit?.();
    this.#retransmit(
      dialog,
      bye,
      () => !this.#dialogs.has(dialog.callId),
      () => this.#forget(dialog),
    );
  }

  /** Sends `text` now and again at T1, 2 T1... (at most T2 apart) until `done`, for 64 T1. */
  #retransmit(dialog: Dialog, text: string, done: () => boolean, gaveUp?: () => void): void {
    let interval = T1;
    let elapsed = 0;
    let cancel = () => {};
    const send = () => {
      if (this.#closed || done()) return;
      this.#send(text, dialog.peer);
      if (elapsed >= TIMEOUT) return gaveUp?.();
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
          ...(world && world.db_hash !== null ? { world } : {}),
        });
      if (!dialog.call) report(undefined);
      else void dialog.call.finished.then(report);
    }
    if (this.#dialogs.get(dialog.callId) === dialog) this.#dialogs.delete(dialog.callId);
  }

  #send(text: string, to: { address: string; port: number }): void {
    if (this.#closed) return;
    this.#socket.send(new TextEncoder().encode(text), to.port, to.address, (e) => {
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

/** A From/To header value with our tag. */
function withTag(value: string, tag: string): string {
  return /;\s*tag=/i.test(value) ? value : `${value};tag=${tag}`;
}
