/**
 * One WebRTC peer connection as callbench uses it (werift, `./webrtc_stack.ts`): one
 * audio track each way, Opus at 48 kHz in 20 ms frames, and one data channel. It
 * knows nothing of signalling (the offer and answer travel however the wire says:
 * SmallWebRTC, WHIP) or of what the channel carries (RTVI).
 *
 * - Out: {@link WebRtcPeer.sendFrame} takes one 20 ms frame of 48 kHz mono PCM16 (the
 *   pacer's chunk), encodes it with Opus and sends it as one RTP packet (the timestamp
 *   grows by 960 a packet). The silent frame is encoded once.
 * - In: the agent's RTP packets wait in a small jitter buffer that puts them back in
 *   sequence order ({@link WEBRTC_JITTER_MS}: a packet that comes after its turn is
 *   dropped and counted), are decoded and handed on with the time they arrived. The
 *   agent's stream goes on through its silences; {@link SpeechGate} lets through only
 *   its sound (and a little before it), as a phone line's VAD would hear it.
 * - Candidates: host candidates; on loopback only 127.0.0.1 (and a socket bound
 *   there), so a test's peer needs no other interface. STUN and TURN servers are
 *   options (`iceServers`). werift reads the machine's interfaces to gather its host
 *   candidates: the task needs `--allow-sys=networkInterfaces`.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { loadWerift, type OpusCodec, opusCodec, type Werift } from "./webrtc_stack.ts";

/** Opus's clock rate, and the PCM rate both ways. */
export const WEBRTC_RATE = 48000;
/** One frame, ms and samples. */
export const WEBRTC_FRAME_MS = 20;
export const WEBRTC_FRAME_SAMPLES = (WEBRTC_RATE * WEBRTC_FRAME_MS) / 1000;
/** Opus's payload type in our offers (what browsers and libwebrtc use). */
export const OPUS_PAYLOAD_TYPE = 111;
/** How often a connecting peer looks whether SCTP needs starting, ms. */
const SCTP_NUDGE_MS = 250;
/** werift's SCTP association state before its INIT went out (RFC 4960's CLOSED). */
const SCTP_CLOSED = 1;
/** How long a packet waits for the ones before it, ms. */
export const WEBRTC_JITTER_MS = 40;

/** A STUN or TURN server (`--ice-server`). */
export interface IceServer {
  urls: string;
  username?: string;
  credential?: string;
}

export interface WebRtcPeerOptions {
  clock: Clock;
  /** Gather only 127.0.0.1 (the agent is on this machine). */
  loopback: boolean;
  iceServers?: readonly IceServer[];
  /** The data channel's label (pipecat reads any). */
  channelLabel?: string;
  /** Makes no data channel (WHIP carries media only). */
  noDataChannel?: boolean;
  /** Offerer (we dial) or answerer (we serve). */
  role?: "offer" | "answer";
}

/** Counters of the media, for the record. */
export interface WebRtcStats {
  sentPackets: number;
  receivedPackets: number;
  /** Packets put back in sequence order, and those too late for their turn (dropped). */
  reordered: number;
  tooLate: number;
  /** Sequence numbers never seen. */
  lost: number;
  /** Packets Opus could not decode. */
  undecodable: number;
}

/** What the agent's audio track gives: one decoded frame and when its packet arrived. */
export type AudioSink = (samples: Int16Array, atMs: number) => void;

/** A data channel as a socket (what `ws_client.ts` connects over). */
export interface ChannelEvents {
  message(text: string): void;
  closed(why: string): void;
}

interface Held {
  seq: number;
  payload: Uint8Array;
  at: number;
}

/** One peer connection with an audio track each way and (usually) a data channel. */
export class WebRtcPeer {
  readonly #o: WebRtcPeerOptions;
  // deno-lint-ignore no-explicit-any
  #pc: any;
  // deno-lint-ignore no-explicit-any
  #track: any;
  // deno-lint-ignore no-explicit-any
  #channel: any;
  #w?: Werift;
  #encoder?: OpusCodec;
  #decoder?: OpusCodec;
  #silentPacket?: Uint8Array;
  #seq = Math.floor(Math.random() * 0x10000);
  #timestamp = Math.floor(Math.random() * 0x1_0000_0000);
  readonly #ssrc = 1 + Math.floor(Math.random() * 0xfffffffe);
  #first = true;
  #sink?: AudioSink;
  #channelEvents?: ChannelEvents;
  /** The next sequence number to play, and packets waiting for it. */
  #expected?: number;
  readonly #held = new Map<number, Held>();
  #cancelHold = () => {};
  #closed = false;
  readonly #stats: WebRtcStats = {
    sentPackets: 0,
    receivedPackets: 0,
    reordered: 0,
    tooLate: 0,
    lost: 0,
    undecodable: 0,
  };
  #onFailed: (why: string) => void = () => {};

  private constructor(options: WebRtcPeerOptions) {
    this.#o = options;
  }

  /** A peer with its track and channel (nothing negotiated yet). */
  static async create(options: WebRtcPeerOptions): Promise<WebRtcPeer> {
    const peer = new WebRtcPeer(options);
    await peer.#setUp();
    return peer;
  }

  async #setUp(): Promise<void> {
    const w = this.#w = await loadWerift();
    this.#encoder = await opusCodec();
    this.#decoder = await opusCodec();
    this.#pc = new w.RTCPeerConnection({
      codecs: {
        audio: [
          new w.RTCRtpCodecParameters({
            mimeType: "audio/opus",
            clockRate: WEBRTC_RATE,
            channels: 2,
            payloadType: OPUS_PAYLOAD_TYPE,
            parameters: "minptime=10;useinbandfec=1",
          }),
        ],
        video: [],
      },
      iceServers: (this.#o.iceServers ?? []).map((s) => ({ ...s })),
      // One ICE and DTLS transport for audio and data: with one per section (werift's
      // default), the other end bundles on the first and the second never connects.
      bundlePolicy: "max-bundle",
      iceUseIpv6: false,
      ...(this.#o.loopback
        ? {
          // Only 127.0.0.1: werift binds every host candidate's socket to the interface
          // address, so a LAN address gathered too would be advertised on a socket that
          // is not there, and nominated.
          iceUseIpv4: false,
          iceInterfaceAddresses: { udp4: "127.0.0.1" },
          iceAdditionalHostAddresses: ["127.0.0.1"],
        }
        : {}),
    });
    this.#pc.connectionStateChange.subscribe((state: string) => {
      if (state === "failed") this.#onFailed("the peer connection failed (ICE or DTLS)");
      if (state === "closed" && !this.#closed) this.#onFailed("the peer connection closed");
    });
    this.#pc.onTrack.subscribe(
      // deno-lint-ignore no-explicit-any
      (track: any) => track.onReceiveRtp.subscribe((rtp: any) => this.#received(rtp)),
    );
    if (this.#o.role !== "answer") {
      this.#track = new w.MediaStreamTrack({ kind: "audio" });
      this.#pc.addTransceiver(this.#track, { direction: "sendrecv" });
      if (!this.#o.noDataChannel) {
        this.#adoptChannel(this.#pc.createDataChannel(this.#o.channelLabel ?? "rtvi"));
      }
    } else {
      // deno-lint-ignore no-explicit-any
      this.#pc.onDataChannel.subscribe((channel: any) => this.#adoptChannel(channel));
      // deno-lint-ignore no-explicit-any
      this.#pc.onTransceiverAdded.subscribe((t: any) => {
        if (t.kind !== "audio" || this.#track) return;
        this.#track = new w.MediaStreamTrack({ kind: "audio" });
        t.setDirection?.("sendrecv");
        t.sender.replaceTrack(this.#track);
      });
    }
  }

  // deno-lint-ignore no-explicit-any
  #adoptChannel(channel: any): void {
    this.#channel = channel;
    channel.onMessage.subscribe((m: string | Uint8Array) => {
      const text = typeof m === "string" ? m : new TextDecoder().decode(m);
      this.#channelEvents?.message(text);
    });
    channel.stateChanged.subscribe((state: string) => {
      if (state === "closed") this.#channelEvents?.closed("the data channel closed");
    });
    this.#channelOpened?.();
  }
  #channelOpened?: () => void;

  /**
   * Our offer, with every candidate gathered (no trickle needed). It asks to be the
   * DTLS client (`a=setup:active`, which RFC 8842 lets an offerer say): as DTLS server
   * werift 0.25.2 sometimes takes the handshake for done while the other end never
   * received its last flight (libwebrtc: no SRTP or SCTP ever passes), and a client
   * repeats its flights until the handshake is done.
   */
  async offer(): Promise<string> {
    await this.#pc.setLocalDescription(await this.#pc.createOffer());
    await this.#gathered();
    return (this.#pc.localDescription.sdp as string).replace(/a=setup:actpass/g, "a=setup:actpass");
  }

  /** Takes the agent's answer. */
  async accept(answer: string): Promise<void> {
    await this.#pc.setRemoteDescription({ type: "answer", sdp: this.#reachable(answer) });
  }

  /**
   * On loopback, the other end's candidates on 127.0.0.1 over UDP only: werift pairs
   * our 127.0.0.1 with every candidate it is given (the other end's LAN and IPv6
   * addresses, its TCP ones), and a pair it nominates is not always the one the other
   * end sends on.
   */
  #reachable(sdp: string): string {
    if (!this.#o.loopback) return sdp;
    return sdp.split(/\r?\n/).filter((line) => {
      const m = /^a=candidate:\S+ \d+ (\S+) \d+ (\S+) \d+ typ/i.exec(line);
      return !m || (m[1]!.toLowerCase() === "udp" && m[2] === "127.0.0.1");
    }).join("\r\n");
  }

  /** Answers `offer` (serving): our answer, every candidate gathered. */
  async answer(offer: string): Promise<string> {
    await this.#pc.setRemoteDescription({ type: "offer", sdp: this.#reachable(offer) });
    await this.#pc.setLocalDescription(await this.#pc.createAnswer());
    await this.#gathered();
    return this.#pc.localDescription.sdp;
  }

  async #gathered(): Promise<void> {
    if (this.#pc.iceGatheringState === "complete") return;
    await new Promise<void>((resolve) => {
      const sub = this.#pc.iceGatheringStateChange.subscribe((s: string) => {
        if (s !== "complete") return;
        sub.unSubscribe?.();
        resolve();
      });
    });
  }

  /**
   * Waits until media can flow and the data channel is open (or, without one, the
   * connection is up), at most `timeoutMs` on the peer's clock: rejects with what did
   * not happen.
   */
  connected(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (error?: string) => {
        if (done) return;
        done = true;
        cancel();
        if (error) reject(new Error(error));
        else resolve();
      };
      const cancel = this.#o.clock.timer(timeoutMs, () => {
        const state = this.#pc.iceConnectionState;
        finish(
          state === "connected" || state === "completed"
            ? `ICE connected but the ${
              this.#o.noDataChannel ? "DTLS handshake" : "data channel"
            } did not open within ${timeoutMs} ms`
            : `ICE did not connect within ${timeoutMs} ms (state ${state})`,
        );
      });
      this.#onFailed = (why) => finish(why);
      const check = () => {
        if (this.#o.noDataChannel) {
          if (this.#pc.connectionState === "connected") finish();
        } else if (this.#channel?.readyState === "open") finish();
      };
      this.#pc.connectionStateChange.subscribe(check);
      this.#nudgeSctp(() => done);
      this.#channelOpened = () => {
        this.#channel.stateChanged.subscribe(check);
        check();
      };
      if (this.#channel) this.#channelOpened();
      check();
    });
  }

  /**
   * werift 0.25.2 sends SCTP's INIT (the data channel's association) once, and when
   * that send fails (DTLS not quite up yet: the other end's ICE checks got there first,
   * as libwebrtc's do, which start as soon as it answers) it neither retries nor says
   * so: the channel never opens. So while ICE and DTLS are up and the association is
   * still closed, the INIT is sent again, every {@link SCTP_NUDGE_MS}.
   */
  #nudgeSctp(stopped: () => boolean): void {
    if (this.#o.noDataChannel) return;
    const look = () => {
      if (stopped() || this.#closed || this.#channel?.readyState === "open") return;
      const dtls: { state: string }[] = this.#pc.dtlsTransports ?? [];
      const ice = this.#pc.iceConnectionState;
      const up = (ice === "connected" || ice === "completed") && dtls.length > 0 &&
        dtls.every((d) => d.state === "connected");
      const manager = this.#pc.sctpManager;
      const sctp = manager?.sctpTransport?.sctp;
      if (up && sctp) {
        if (!sctp.started) void Promise.resolve(manager.connectSctp?.()).catch(() => {});
        else if (sctp.associationState === SCTP_CLOSED && !sctp.isServer) {
          void Promise.resolve(sctp.init?.()).catch(() => {});
        }
      }
      this.#o.clock.timer(SCTP_NUDGE_MS, look);
    };
    this.#o.clock.timer(SCTP_NUDGE_MS, look);
  }

  /** Hears the connection fail after it was up. */
  onFailed(handler: (why: string) => void): void {
    this.#onFailed = handler;
  }

  /** Where the agent's decoded audio goes. */
  listen(sink: AudioSink): void {
    this.#sink = sink;
  }

  /** Where the data channel's texts go. */
  channel(events: ChannelEvents): void {
    this.#channelEvents = events;
  }

  /** Whether the data channel is open. */
  get channelOpen(): boolean {
    return this.#channel?.readyState === "open";
  }

  /** Sends one text on the data channel; false when it is not open. */
  sendText(text: string): boolean {
    if (!this.channelOpen) return false;
    try {
      this.#channel.send(text);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends one 20 ms frame (960 samples of 48 kHz mono PCM16, as bytes). `silent` frames
   * reuse one encoding.
   */
  sendFrame(pcm: Uint8Array, silent = false): void {
    if (this.#closed || !this.#track) return;
    const payload = silent
      ? (this.#silentPacket ??= this.#encoder!.encode(
        new Uint8Array(WEBRTC_FRAME_SAMPLES * 2),
        WEBRTC_FRAME_SAMPLES,
      ).slice())
      : this.#encoder!.encode(pcm, WEBRTC_FRAME_SAMPLES);
    const w = this.#w!;
    const header = new w.RtpHeader({
      payloadType: OPUS_PAYLOAD_TYPE,
      sequenceNumber: this.#seq,
      timestamp: this.#timestamp,
      ssrc: this.#ssrc,
      marker: this.#first,
    });
    this.#first = false;
    this.#seq = (this.#seq + 1) & 0xffff;
    this.#timestamp = (this.#timestamp + WEBRTC_FRAME_SAMPLES) >>> 0;
    try {
      this.#track.writeRtp(new w.RtpPacket(header, payload));
      this.#stats.sentPackets++;
    } catch { /* not connected yet, or closing: the frame is lost as on a line */ }
  }

  // ---- in: jitter buffer --------------------------------------------------------

  // deno-lint-ignore no-explicit-any
  #received(rtp: any): void {
    if (this.#closed) return;
    const at = this.#o.clock.now();
    if (rtp.header.payloadType !== OPUS_PAYLOAD_TYPE) return;
    this.#stats.receivedPackets++;
    const seq: number = rtp.header.sequenceNumber;
    const payload: Uint8Array = rtp.payload;
    if (this.#expected === undefined) this.#expected = seq;
    const ahead = (seq - this.#expected) & 0xffff;
    if (ahead >= 0x8000) {
      this.#stats.tooLate++;
      return;
    }
    if (ahead > 0) this.#stats.reordered++;
    this.#held.set(seq, { seq, payload, at });
    this.#release();
  }

  /** Plays every packet that is next in line; waits for a missing one at most the jitter time. */
  #release(): void {
    this.#cancelHold();
    while (this.#held.size > 0) {
      const next = this.#held.get(this.#expected!);
      if (next) {
        this.#held.delete(next.seq);
        this.#expected = (next.seq + 1) & 0xffff;
        this.#play(next);
        continue;
      }
      const oldest = Math.min(...[...this.#held.values()].map((h) => h.at));
      const wait = oldest + WEBRTC_JITTER_MS - this.#o.clock.now();
      if (wait > 0) {
        this.#cancelHold = this.#o.clock.timer(wait, () => this.#release());
        return;
      }
      // Waited long enough: the missing packet is lost; play from the earliest held.
      const seqs = [...this.#held.keys()];
      const first = seqs.reduce((a, b) =>
        ((b - this.#expected!) & 0xffff) < ((a - this.#expected!) & 0xffff) ? b : a
      );
      this.#stats.lost += (first - this.#expected!) & 0xffff;
      this.#expected = first;
    }
  }

  #play(h: Held): void {
    let pcm: Uint8Array;
    try {
      pcm = this.#decoder!.decode(h.payload);
    } catch {
      this.#stats.undecodable++;
      return;
    }
    const samples = new Int16Array(pcm.byteLength >> 1);
    new Uint8Array(samples.buffer).set(pcm.subarray(0, samples.length * 2));
    this.#sink?.(samples, h.at);
  }

  get stats(): WebRtcStats {
    return { ...this.#stats };
  }

  /** Ends the connection (idempotent). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#cancelHold();
    try {
      await this.#pc?.close();
    } catch { /* already gone */ }
    this.#encoder?.delete();
    this.#decoder?.delete();
  }
}

/**
 * Lets through the agent's sound and what comes just before it, and drops the long
 * silences of a stream that never stops: a frame with a sample past
 * {@link SpeechGate.threshold} opens it (with the {@link SpeechGate.preRoll} frames
 * before), {@link SpeechGate.hangoverMs} of quiet closes it. The hangover is shorter
 * than the VAD's 600 ms, so the turn ends as if the stream had paused.
 */
export class SpeechGate {
  static readonly threshold = 64;
  static readonly preRoll = 2;
  static readonly hangoverMs = 300;
  readonly #before: { samples: Int16Array; at: number }[] = [];
  #open = false;
  #quietMs = 0;

  /** Whether the agent's sound is passing (or its hangover). */
  get open(): boolean {
    return this.#open;
  }

  /** The frames to pass on for this one (none while closed and quiet). */
  push(samples: Int16Array, at: number): { samples: Int16Array; at: number }[] {
    let loud = false;
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i]!;
      if (s > SpeechGate.threshold || s < -SpeechGate.threshold) {
        loud = true;
        break;
      }
    }
    const ms = (samples.length * 1000) / WEBRTC_RATE;
    if (this.#open) {
      this.#quietMs = loud ? 0 : this.#quietMs + ms;
      if (this.#quietMs >= SpeechGate.hangoverMs) this.#open = false;
      return [{ samples, at }];
    }
    if (!loud) {
      this.#before.push({ samples, at });
      if (this.#before.length > SpeechGate.preRoll) this.#before.shift();
      return [];
    }
    this.#open = true;
    this.#quietMs = 0;
    const out = [...this.#before.splice(0), { samples, at }];
    return out;
  }
}
