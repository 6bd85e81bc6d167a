/**
 * The SmallWebRTC mapping (`--agent http(s)://HOST:PORT/api/offer`, or `--framing
 * smallwebrtc`): a bot behind pipecat's SmallWebRTC transport, reached as pipecat's
 * own browser client reaches it. callbench is the offerer:
 *
 * 1. It makes a peer connection (`./webrtc_peer.ts`: one Opus audio track each way,
 *    one data channel), gathers its candidates and POSTs the offer
 *    (`src/protocol/smallwebrtc.ts`); the answer names the connection (`pc_id`).
 * 2. The answer must carry Opus both ways and a data channel, else `protocol_error`
 *    naming what it lacked; ICE and DTLS must connect and the channel open within the
 *    connect timeout, else `agent_unreachable` saying which step did not happen. HTTP
 *    401/403 to the offer is `agent_unauthorized`, another HTTP error
 *    `agent_unreachable`, no answer within the reply timeout `agent_timeout`, an
 *    answer that is not SmallWebRTC's JSON `protocol_error`.
 * 3. RTVI runs over the data channel exactly as over a WebSocket (`./rtvi.ts`: the
 *    handshake, tools run in the trial's world, transcripts, `server-message`); the
 *    channel's keep-alive (`ping` once a second) and signalling messages
 *    (`renegotiate`: a new offer on the same `pc_id`; `peerLeft`: the bot left) are
 *    handled here and never reach RTVI.
 * 4. Audio calls: the caller's speech is paced (`src/audio/pacer.ts`) in 20 ms frames
 *    at 48 kHz and sent as Opus; the bot's audio, decoded, goes through the jitter
 *    buffer and {@link SpeechGate} to RTVI's receiver with each packet's arrival.
 *    Keys go as RTVI `dtmf` messages (in-band tones in an `inband` call).
 *
 * @module
 */
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Clock,
  type Participant,
  ParticipantError,
  type ParticipantInfo,
  type SelfWorldReport,
} from "../bridge/call.ts";
import type { Pcm16 } from "../audio/pcm.ts";
import { pcm16BytesView } from "../audio/pcm.ts";
import { answerProblem, OFFER_PATH, readAnswer, readChannelText } from "../protocol/smallwebrtc.ts";
import { remoteInfo, type ResolvedRemote, type WireMapping } from "./mapping.ts";
import { type RtviMedia, RtviParticipant } from "./rtvi.ts";
import type { ClientSocket } from "./ws_client.ts";
import {
  type IceServer,
  SpeechGate,
  WEBRTC_FRAME_MS,
  WEBRTC_RATE,
  WebRtcPeer,
} from "./webrtc_peer.ts";

/** How long ICE, DTLS and the data channel may take to come up (default), ms. */
export const WEBRTC_CONNECT_TIMEOUT_MS = 5_000;
/** Peer connections tried before `agent_unreachable` (default). */
export const CONNECT_ATTEMPTS = 3;
/** How long the bot may take to answer the offer (default), ms. */
export const OFFER_TIMEOUT_MS = 15_000;
/** The data channel's keep-alive, as pipecat's client sends it. */
const KEEPALIVE_MS = 1000;
/** The longest a `bot-stopped-speaking` waits for the bot's audio to stop, ms. */
export const HOLD_MAX_MS = 1000;
/** An HTTP error's body, this much of it, goes in the message. */
const BODY_SHOWN = 200;

/** The SmallWebRTC mapping. */
export const smallWebRtcMapping: WireMapping = (options) => new SmallWebRtcParticipant(options);

/** Where a SmallWebRTC offer goes: the URL as given, or `/api/offer` on a bare host. */
export function offerUrl(url: string): string {
  const u = new URL(url);
  u.searchParams.delete("framing");
  if (u.pathname === "" || u.pathname === "/") u.pathname = OFFER_PATH;
  return u.toString();
}

/** A bot behind SmallWebRTC: the peer connection and signalling here, RTVI in `./rtvi.ts`. */
export class SmallWebRtcParticipant implements Participant {
  readonly #o: ResolvedRemote;
  #info: ParticipantInfo;
  #line?: CallLine;
  #peer?: WebRtcPeer;
  #inner?: RtviParticipant;
  #pcId?: string;
  #cancelKeepAlive = () => {};
  #socket?: ChannelSocket;
  /** Audio calls: what of the bot's track is passed on (its sound). */
  #gate?: SpeechGate;
  #closing = false;

  constructor(options: ResolvedRemote, readonly iceServers: readonly IceServer[] = []) {
    this.#o = options;
    this.#info = remoteInfo(options, { codec: "opus/48000" });
  }

  get info(): ParticipantInfo {
    return this.#info;
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    if (setup.agent_world) {
      throw new ParticipantError(
        "protocol_error",
        `${this.#who()}: an agent that owns its world is not supported ` +
          "over SmallWebRTC (its setup reconnects, and a peer connection is one call)",
      );
    }
    const peer = this.#peer = await this.#connect(line);
    this.#keepAlive();
    peer.onFailed((why) => this.#socket?.lost(why));
    // The channel is open: the socket says so once the client has set its handlers.
    const connect = () => {
      if (this.#socket) {
        throw new Error("the data channel was closed (a peer connection is one call)");
      }
      return this.#socket = new ChannelSocket(
        peer,
        (type) => this.#signalling(type),
        { clock: line.clock, audioPlaying: () => this.#gate?.open ?? false },
      );
    };
    this.#inner = new RtviParticipant(
      { ...this.#o, connect, connectAttempts: 1 },
      line.audio ? this.#media(peer) : undefined,
    );
    await this.#inner.start(line, setup);
  }

  /**
   * Offers, takes the answer and waits for the connection, up to `connectAttempts`
   * times (default 3) with a fresh peer connection each time when ICE, DTLS or the
   * data channel did not come up: werift's DTLS handshake with libwebrtc sometimes
   * ends on our side only (no media or data ever passes), and a new connection gets
   * through. A refused or bad answer is not retried.
   */
  async #connect(line: CallLine): Promise<WebRtcPeer> {
    const host = new URL(this.#o.connectUrl).hostname;
    const attempts = Math.max(1, this.#o.connectAttempts ?? CONNECT_ATTEMPTS);
    const timeout = this.#o.connectTimeoutMs ?? WEBRTC_CONNECT_TIMEOUT_MS;
    for (let attempt = 1;; attempt++) {
      const peer = this.#peer = await WebRtcPeer.create({
        clock: line.clock,
        loopback: host === "127.0.0.1" || host === "localhost" || host === "[::1]",
        iceServers: this.iceServers,
      });
      const offer = await peer.offer();
      const answer = await this.#post({ sdp: offer, type: "offer" }).catch(async (e) => {
        await peer.close();
        throw e;
      });
      const problem = answerProblem(answer.sdp, { dataChannel: true });
      if (problem) {
        await peer.close();
        throw new ParticipantError("protocol_error", `${this.#who()}: ${problem}`);
      }
      this.#pcId = answer.pc_id;
      line.trace({ type: "webrtc_answer", pc_id: answer.pc_id, attempt });
      await peer.accept(answer.sdp);
      try {
        await peer.connected(timeout);
        return peer;
      } catch (e) {
        const why = (e as Error).message;
        await peer.close();
        if (attempt >= attempts) {
          throw new ParticipantError(
            "agent_unreachable",
            `${this.#who()}: ${why}${attempts > 1 ? ` (${attempts} attempts)` : ""}`,
          );
        }
        line.trace({ type: "webrtc_retry", pc_id: answer.pc_id, attempt, reason: why });
      }
    }
  }

  /** The audio tracks as RTVI's audio path sees them. */
  #media(peer: WebRtcPeer): RtviMedia {
    return {
      sampleRate: WEBRTC_RATE,
      chunkMs: WEBRTC_FRAME_MS,
      send: (chunk, silent) => peer.sendFrame(chunk.pcm, silent),
      listen: (push) => {
        const gate = this.#gate = new SpeechGate();
        peer.listen((samples, at) => {
          for (const f of gate.push(samples, at)) {
            push({ pcm: pcm16BytesView(f.samples), sampleRate: WEBRTC_RATE, numChannels: 1 }, f.at);
          }
          if (!gate.open) this.#socket?.audioStopped();
        });
      },
    };
  }

  /** POSTs an offer; the answer, or the error kind its failure is. */
  async #post(body: Record<string, unknown>): Promise<{ sdp: string; pc_id: string }> {
    const clock = this.#line!.clock;
    const timeoutMs = this.#o.replyTimeoutMs ?? OFFER_TIMEOUT_MS;
    const abort = new AbortController();
    let timedOut = false;
    const cancel = clock.timer(timeoutMs, () => {
      timedOut = true;
      abort.abort();
    });
    const url = offerUrl(this.#o.connectUrl);
    try {
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {}),
          },
          body: JSON.stringify(body),
          signal: abort.signal,
        });
      } catch (e) {
        if (timedOut) throw this.#noAnswer(timeoutMs);
        throw new ParticipantError(
          "agent_unreachable",
          `cannot reach ${this.#o.shownUrl} (${this.#o.side}): ${(e as Error).message}`,
        );
      }
      const text = await response.text().catch((e) => {
        if (timedOut) throw this.#noAnswer(timeoutMs);
        throw new ParticipantError(
          "agent_disconnected",
          `${this.#who()} broke off its answer to the offer: ${(e as Error).message}`,
        );
      });
      if (response.status === 401 || response.status === 403) {
        throw new ParticipantError(
          "agent_unauthorized",
          `${this.#who()} refused the offer: HTTP ${response.status} (check the token)`,
        );
      }
      if (!response.ok) {
        throw new ParticipantError(
          "agent_unreachable",
          `${this.#who()} refused the offer: HTTP ${response.status}${
            text ? ` (${text.slice(0, BODY_SHOWN)})` : ""
          }`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new ParticipantError(
          "protocol_error",
          `${this.#who()} answered the offer with something that is not JSON: ${
            JSON.stringify(text.slice(0, BODY_SHOWN))
          }`,
        );
      }
      const read = readAnswer(json);
      if (!read.ok) throw new ParticipantError("protocol_error", `${this.#who()}: ${read.message}`);
      return read.answer;
    } finally {
      cancel();
    }
  }

  #noAnswer(timeoutMs: number): ParticipantError {
    return new ParticipantError(
      "agent_timeout",
      `${this.#who()} did not answer the offer within ${timeoutMs} ms`,
    );
  }

  /** The channel's keep-alive (pipecat's bot takes a silent client for gone). */
  #keepAlive(): void {
    const clock = this.#line!.clock;
    const tick = () => {
      if (this.#closing) return;
      this.#peer?.sendText(`ping: ${Date.now()}`);
      this.#cancelKeepAlive = clock.timer(KEEPALIVE_MS, tick);
    };
    this.#cancelKeepAlive = clock.timer(KEEPALIVE_MS, tick);
  }

  /** A signalling message on the channel. */
  #signalling(type: string): void {
    const line = this.#line!;
    line.trace({ type: "webrtc_signalling", message: type });
    if (type === "peerLeft") return this.#socket?.lost("the bot left (peerLeft)", 1000);
    if (type !== "renegotiate" || this.#closing) return;
    // A new offer on the same connection: the bot answers it as an update.
    void (async () => {
      const peer = this.#peer!;
      const offer = await peer.offer();
      const answer = await this.#post({
        sdp: offer,
        type: "offer",
        pc_id: this.#pcId,
        restart_pc: false,
      });
      await peer.accept(answer.sdp);
    })().catch((e) => {
      if (this.#closing) return;
      line.fail(
        e instanceof ParticipantError
          ? e
          : new ParticipantError("protocol_error", `${this.#who()}: renegotiation failed: ${e}`),
      );
    });
  }

  onEvent(event: CallEvent): void {
    this.#inner?.onEvent(event);
  }

  worldReport(): Promise<SelfWorldReport> {
    return this.#inner?.worldReport() ?? Promise.resolve({ db_hash: null, actions: [] });
  }

  flush(options: { wait: boolean }): Promise<void> | void {
    return this.#inner?.flush(options);
  }

  wireAudio(audio: Pcm16): Pcm16 {
    return this.#inner?.wireAudio(audio) ?? audio;
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#cancelKeepAlive();
    try {
      await this.#inner?.close();
    } finally {
      const peer = this.#peer;
      if (peer) {
        this.#line?.trace({ type: "webrtc_media", pc_id: this.#pcId, ...peer.stats });
        await peer.close();
      }
    }
  }

  #who(): string {
    return `the ${this.#o.side} at ${this.#o.shownUrl}`;
  }
}

/**
 * The data channel as the socket `./ws_client.ts` connects over: RTVI's texts pass;
 * keep-alives and signalling are taken out first. It is open when made (the channel
 * opened before), so it says so on the next turn of the event loop, once the client
 * has set its handlers.
 *
 * The channel and the audio track are two paths: the bot's `bot-stopped-speaking`
 * leaves when its last frame is handed to its stack and comes before that frame has
 * arrived here (the track's jitter buffers hold it). So a `bot-stopped-speaking` that
 * comes while the bot's audio still plays waits, and every message after it, until
 * the audio has stopped ({@link SpeechGate}'s hangover), at most {@link HOLD_MAX_MS}:
 * the turn then ends with all of its audio, as on a WebSocket, where both share one
 * ordered stream.
 */
export class ChannelSocket implements ClientSocket {
  readyState = 0;
  binaryType = "";
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: { message?: string }) => void) | null = null;
  readonly #peer: WebRtcPeer;
  readonly #hold?: { clock: Clock; audioPlaying: () => boolean };
  /** Messages held until the bot's audio stopped, in order. */
  #held: string[] = [];
  #cancelHold = () => {};

  constructor(
    peer: WebRtcPeer,
    signalling: (type: string) => void,
    hold?: { clock: Clock; audioPlaying: () => boolean },
  ) {
    this.#peer = peer;
    this.#hold = hold;
    peer.channel({
      message: (text) => {
        const read = readChannelText(text);
        if (read.kind === "ping") return;
        if (read.kind === "signalling") return signalling(read.type);
        if (this.#held.length > 0) {
          this.#held.push(text);
          return;
        }
        if (hold && text.includes('"bot-stopped-speaking"') && hold.audioPlaying()) {
          this.#held.push(text);
          this.#cancelHold = hold.clock.timer(HOLD_MAX_MS, () => this.audioStopped());
          return;
        }
        this.onmessage?.({ data: text });
      },
      closed: (why) => this.lost(why),
    });
    setTimeout(() => {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this.onopen?.({});
    }, 0);
  }

  /** The bot's audio stopped: the messages held for it go on. */
  audioStopped(): void {
    if (this.#held.length === 0) return;
    this.#cancelHold();
    const held = this.#held;
    this.#held = [];
    for (const text of held) {
      if (this.readyState !== 1) return;
      this.onmessage?.({ data: text });
    }
  }

  send(data: string | Uint8Array<ArrayBuffer>): void {
    if (this.readyState !== 1) return;
    this.#peer.sendText(typeof data === "string" ? data : new TextDecoder().decode(data));
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code, reason }), 0);
  }

  /** The connection went (the peer failed, the channel closed, the bot left). */
  lost(why: string, code = 1006): void {
    if (this.readyState === 3) return;
    // What the bot said before it went is heard first.
    this.audioStopped();
    this.readyState = 3;
    this.onclose?.({ code, reason: why });
  }
}
