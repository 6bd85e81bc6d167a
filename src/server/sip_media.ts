/**
 * One answered SIP call's media: its own RTP socket (`node:dgram`), the SDP answer, G.711
 * audio both ways and RFC 4733 keys both ways. The SDP, the RTP packets and the telephone
 * events are those of src/protocol/sdp.ts and src/protocol/rtp.ts.
 *
 * - Out: from the ACK on, a packet every 20 ms: each chunk the session paces
 *   (src/audio/pacer.ts, in the session) is one RTP packet of the negotiated codec, sent
 *   as it comes, and silence fills the time between utterances (once a chunk is 30 ms
 *   overdue), so the far end's jitter buffer plays every chunk out. Keys are telephone
 *   events, without audio meanwhile: 100 ms each (an update every 20 ms, the end packet
 *   three times), 60 ms apart.
 * - In (what is latched when): when the offer's address is the caller's own (the one its
 *   signalling comes from, or its Contact's), only packets from the offer's address and
 *   port are taken: a third party that sends first gets nothing. When it is not (a NAT,
 *   or a phone that advertises another interface), the first packet from the offer's
 *   address, the signalling's or the Contact's is latched, and our audio goes back there
 *   (symmetric RTP). A re-INVITE whose offer keeps the address and port keeps the latch
 *   (hold and resume); one that moves them latches anew. Packets of the negotiated
 *   codec are decoded and handed on in sequence order (a packet older than the last one
 *   handed on is dropped), per SSRC: a new SSRC, or a jump far back that the next packet
 *   confirms, is a restarted stream (RFC 3550 §A.1). Telephone events give one key each,
 *   once, and so do in-band tones in the audio; past the key bounds
 *   (src/transport/key_bounds.ts) `onBound` is told. Anything else is counted and ignored.
 *
 * @module
 */
import { createSocket, type RemoteInfo, type Socket } from "node:dgram";
import type { Clock } from "../bridge/call.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { alawDecode, alawEncode } from "../audio/alaw.ts";
import {
  buildRtp,
  parseRtp,
  sequenceDelta,
  telephoneEventPackets,
  TelephoneEventReceiver,
} from "../protocol/rtp.ts";
import { answerOffer as answerSdpOffer, buildSdp, type NegotiatedMedia } from "../protocol/sdp.ts";
import { DtmfDetector } from "../audio/dtmf.ts";
import { KeyBounds } from "../transport/key_bounds.ts";
import { sdpAddressUsable } from "../transport/sip_dialog.ts";

export type { NegotiatedMedia };

/** The offer's media as we answer it (src/protocol/sdp.ts), or why it cannot be answered. */
export function answerOffer(
  sdp: string,
  host: string,
): { ok: true; media: NegotiatedMedia } | { ok: false; error: string } {
  // The port is our RTP socket's, bound once the offer is known to be answerable.
  const r = answerSdpOffer(sdp, { address: host, port: 9, sessionId: 0 });
  return r.ok ? { ok: true, media: r.media } : { ok: false, error: r.error.message };
}

/** Counters of what was refused on receive. */
export interface MediaCounters {
  /** Packets sent (audio and events). */
  sent: number;
  /** Audio packets handed on. */
  received: number;
  /** Audio handed on louder than -40 dBFS, ms (per packet). */
  voicedMs: number;
  /** Packets from an address other than the far end's. */
  foreign: number;
  /** Packets of a payload type that was not negotiated, or that did not parse. */
  refused: number;
  /** Packets older than the last one handed on. */
  late: number;
  /** Times the far end's stream restarted (a new SSRC, or a confirmed jump back). */
  restarts: number;
  /** Keys heard (telephone events, in-band tones, SIP INFO). */
  keys: number;
  /** ...by how they came. */
  keysBy: { rfc4733: number; info: number; inband: number };
}

/** A jump back this far is no reordering but a restart, once the next packet confirms it. */
const MAX_MISORDER = 100;

const SAMPLES_PER_CHUNK = 160;
const SILENCE = new Int16Array(SAMPLES_PER_CHUNK);
/** A silent chunk goes once the session's next one is this late (1.5 chunks). */
const FILL_AFTER_MS = 30;
const KEY_MS = 100;
const KEY_GAP_MS = 60;

/** An open RTP stream. */
export class SipMedia {
  readonly negotiated: NegotiatedMedia;
  readonly counters: MediaCounters = {
    sent: 0,
    received: 0,
    voicedMs: 0,
    foreign: 0,
    refused: 0,
    late: 0,
    restarts: 0,
    keys: 0,
    keysBy: { rfc4733: 0, info: 0, inband: 0 },
  };
  /** The far end's audio, 8 kHz mono, in order. */
  onAudio: (samples: Int16Array) => void = () => {};
  /** A key the far end pressed. */
  onKey: (key: string) => void = () => {};
  /** A bound was passed (src/transport/key_bounds.ts): told once; no key is taken after. */
  onBound: (what: string) => void = () => {};
  readonly #socket: Socket;
  readonly #clock: Clock;
  readonly #log: (line: string) => void;
  readonly #ssrc = crypto.getRandomValues(new Uint32Array(1))[0]!;
  #seq = crypto.getRandomValues(new Uint16Array(1))[0]!;
  #timestamp = crypto.getRandomValues(new Uint32Array(1))[0]!;
  /** When the last audio packet went, on the clock; undefined before the first. */
  #lastSentAt?: number;
  #remote: { address: string; port: number };
  /** The offer's address and port, and the addresses a latch may come from. */
  #offered: { address: string; port: number };
  readonly #caller: ReadonlySet<string>;
  /** The socket's address: whether an offer's address can be a source at all. */
  #local = "127.0.0.1";
  #latched = false;
  #lastSeq?: number;
  #farSsrc?: number;
  /** The sequence number that confirms a jump back (RFC 3550's bad_seq). */
  #badSeq?: number;
  readonly #dtmf = new DtmfDetector({ sampleRate: 8000 });
  readonly #keyBounds: KeyBounds;
  #bounded = false;
  readonly #events = new TelephoneEventReceiver();
  readonly #sessionId = crypto.getRandomValues(new Uint32Array(1))[0]!;
  #keys: Promise<void> = Promise.resolve();
  #stopped = false;
  #closed = false;
  #cancelFill?: () => void;
  #started = false;
  #pressing = false;
  #direction: "sendrecv" | "sendonly" | "recvonly" | "inactive" = "sendrecv";
  #version = 1;
  /** When the next packet is due, on the clock. */
  #due = 0;

  private constructor(
    socket: Socket,
    negotiated: NegotiatedMedia,
    clock: Clock,
    log: (line: string) => void,
    caller: readonly string[],
  ) {
    this.#socket = socket;
    this.negotiated = negotiated;
    this.#remote = { address: negotiated.remoteAddress, port: negotiated.remotePort };
    this.#offered = { ...this.#remote };
    this.#caller = new Set(caller);
    this.#clock = clock;
    this.#log = log;
    this.#keyBounds = new KeyBounds(clock);
  }

  /** Binds the call's RTP socket on `hostname`, a free port. */
  static async open(options: {
    hostname: string;
    negotiated: NegotiatedMedia;
    clock: Clock;
    log: (line: string) => void;
    /** Where the caller's signalling comes from and its Contact's host: a latch may come from these. */
    caller?: readonly string[];
  }): Promise<SipMedia> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(0, options.hostname, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    const media = new SipMedia(
      socket,
      options.negotiated,
      options.clock,
      options.log,
      options.caller ?? [],
    );
    media.#local = options.hostname;
    socket.on("message", (data, rinfo) => media.#receive(data, rinfo));
    socket.on("error", (e) => options.log(`rtp socket: ${e.message}`));
    return media;
  }

  /** The RTP port bound. */
  get port(): number {
    return this.#socket.address().port;
  }

  /** The SDP answer: our address and port, the codec, telephone-event when offered. */
  answerSdp(host: string): string {
    const event = this.negotiated.telephoneEvent;
    const sdp = buildSdp({
      address: host,
      port: this.port,
      codecs: [this.negotiated.codec],
      ...(event !== undefined ? { telephoneEvent: event } : {}),
      sessionId: this.#sessionId,
      version: this.#version,
    });
    return this.#direction === "sendrecv"
      ? sdp
      : sdp.replace("\r\na=sendrecv\r\n", `\r\na=${this.#direction}\r\n`);
  }

  /**
   * A new offer in the dialog (a re-INVITE): hold (`sendonly` or `inactive`: we answer
   * `recvonly` or `inactive` and send nothing until resumed), resume, or a new address.
   */
  reoffer(
    offer: {
      direction: "sendrecv" | "sendonly" | "recvonly" | "inactive";
      address: string;
      port: number;
    },
  ): void {
    const answer = {
      sendrecv: "sendrecv",
      sendonly: "recvonly",
      recvonly: "sendonly",
      inactive: "inactive",
    } as const;
    this.#direction = answer[offer.direction];
    this.#version++;
    // Hold and resume keep the offer's address: the latch stays. A new one latches anew.
    if (offer.address === this.#offered.address && offer.port === this.#offered.port) return;
    this.#offered = { address: offer.address, port: offer.port };
    this.#remote = { ...this.#offered };
    this.#latched = false;
  }

  /** Whether the far end holds the call (its offer was `sendonly` or `inactive`). */
  get held(): boolean {
    return this.#direction === "recvonly" || this.#direction === "inactive";
  }

  /** A key the far end pressed (by default some other way than RTP: SIP INFO), within the key bounds. */
  heardKey(key: string, how: "rfc4733" | "info" | "inband" = "info"): void {
    if (this.#closed || this.#bounded) return;
    const passed = this.#keyBounds.add();
    if (passed) {
      this.#bounded = true;
      this.onBound(passed);
      return;
    }
    this.counters.keys++;
    this.counters.keysBy[how]++;
    this.onKey(key);
  }

  /** Whether the far end takes our audio now (not on hold). */
  get sending(): boolean {
    return this.#direction === "sendrecv" || this.#direction === "sendonly";
  }

  /**
   * Starts the stream: silence until the session speaks, and between its utterances, so
   * the far end's jitter buffer plays every chunk out (it holds the last few until more
   * come).
   */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#due = this.#clock.now();
    this.#armFill(0);
  }

  /** One 20 ms chunk (160 samples at 8 kHz) of the session's speech. */
  sendAudio(samples: Int16Array): void {
    if (this.#stopped) return;
    this.#sendChunk(samples);
    // The session's pacer keeps speech on its own grid; silence takes over on that grid
    // once a chunk is overdue by half a chunk.
    this.#due = this.#clock.now() + 20;
    this.#armFill(FILL_AFTER_MS - 20);
  }

  /**
   * Silence at the next due time (plus `slack`), then every 20 ms on the grid of due
   * times (never from when a timer fired, so late timers do not slow the stream down),
   * until the session speaks again.
   */
  #armFill(slack: number): void {
    this.#cancelFill?.();
    if (this.#stopped || this.#pressing || !this.#started) return;
    const wait = Math.max(0, this.#due + slack - this.#clock.now());
    this.#cancelFill = this.#clock.timer(wait, () => {
      this.#sendChunk(SILENCE);
      this.#due += 20;
      this.#armFill(0);
    });
  }

  /**
   * One chunk on the stream. The stream is continuous from the ACK on (silence fills it), so
   * the timestamp grows by one chunk a packet, and only the first packet has the marker.
   */
  #sendChunk(samples: Int16Array): void {
    const first = this.#lastSentAt === undefined;
    if (!first) this.#timestamp = (this.#timestamp + SAMPLES_PER_CHUNK) >>> 0;
    this.#lastSentAt = this.#clock.now();
    const payload = this.negotiated.codec === "PCMU" ? mulawEncode(samples) : alawEncode(samples);
    this.#sendPacket(this.negotiated.payloadType, first, this.#timestamp, payload);
  }

  /** Keys as telephone events, one after the other; resolves once they are sent. */
  sendKeys(keys: string): Promise<void> {
    const pt = this.negotiated.telephoneEvent;
    const run = async () => {
      // No silence between the events: the far end hears the keys alone.
      this.#pressing = true;
      this.#cancelFill?.();
      try {
        await sendAll();
      } finally {
        this.#pressing = false;
        if (this.#started) {
          this.#due = this.#clock.now() + 20;
          this.#armFill(0);
        }
      }
    };
    const sendAll = async () => {
      if (pt === undefined) {
        this.#log(`keys ${keys} not sent: the far end offered no telephone-event`);
        return;
      }
      for (const key of keys.toUpperCase()) {
        if (this.#stopped) return;
        const packets = telephoneEventPackets(key, { durationMs: KEY_MS });
        if (packets.length === 0) continue;
        const ts = (this.#timestamp = (this.#timestamp + SAMPLES_PER_CHUNK) >>> 0);
        let at = 0;
        for (const p of packets) {
          if (p.atMs > at) await this.#wait(p.atMs - at);
          at = p.atMs;
          this.#sendPacket(pt, p.marker, ts, p.payload);
        }
        this.#timestamp = (this.#timestamp + KEY_MS * 8) >>> 0;
        await this.#wait(KEY_GAP_MS);
      }
    };
    this.#keys = this.#keys.then(run);
    return this.#keys;
  }

  /** No more packets are sent (the call is hanging up); the socket still reads. */
  stop(): void {
    this.#stopped = true;
    this.#cancelFill?.();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.stop();
    try {
      this.#socket.close();
    } catch { /* already closed */ }
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => this.#clock.timer(ms, resolve));
  }

  #sendPacket(pt: number, marker: boolean, timestamp: number, payload: Uint8Array): void {
    if (this.#closed || !this.sending) return;
    // An IPv6 offer is answered once its packets come (this socket is IPv4).
    if (!this.#latched && !sdpAddressUsable(this.#remote.address, "0.0.0.0")) return;
    const packet = buildRtp({
      payloadType: pt,
      marker,
      sequence: this.#seq,
      timestamp,
      ssrc: this.#ssrc,
      payload,
    });
    this.#seq = (this.#seq + 1) & 0xffff;
    this.counters.sent++;
    this.#socket.send(packet, this.#remote.port, this.#remote.address, (e) => {
      if (e) this.#log(`rtp send failed: ${e.message}`);
    });
  }

  /**
   * Whether a packet from `from` is the far end's: from where the stream is latched, or
   * the first from an address the caller may send from (see the module's doc).
   */
  #accept(from: { address: string; port: number }): boolean {
    const r = this.#remote;
    if (from.address === r.address && from.port === r.port) {
      this.#latched = true;
      return true;
    }
    if (this.#latched) return false;
    const usable = sdpAddressUsable(this.#offered.address, this.#local);
    // The offer names the caller's own address: only its port is the caller's.
    if (usable && this.#caller.has(this.#offered.address)) return false;
    // An offer whose address cannot be a source at all: the first packet from anywhere.
    if (usable && from.address !== this.#offered.address && !this.#caller.has(from.address)) {
      return false;
    }
    this.#remote = { address: from.address, port: from.port };
    this.#latched = true;
    this.#log(
      `rtp latched on ${from.address}:${from.port} (the offer said ${r.address}:${r.port})`,
    );
    return true;
  }

  #receive(data: Uint8Array, rinfo: RemoteInfo): void {
    if (this.#closed) return;
    try {
      if (!this.#accept(rinfo)) {
        this.counters.foreign++;
        if (this.counters.foreign === 1 || this.counters.foreign % 1000 === 0) {
          this.#log(
            `rtp from ${rinfo.address}:${rinfo.port} ignored (not the caller's; ${this.counters.foreign} so far)`,
          );
        }
        return;
      }
      const parsed = parseRtp(data);
      if (!parsed.ok) {
        this.counters.refused++;
        return;
      }
      const packet = parsed.packet;
      const pt = packet.payloadType;
      if (pt === this.negotiated.telephoneEvent) {
        const key = this.#events.push(packet.timestamp, packet.payload);
        if (key !== undefined) this.heardKey(key, "rfc4733");
        return;
      }
      if (pt !== this.negotiated.payloadType) {
        this.counters.refused++;
        return;
      }
      if (!this.#inSequence(packet.ssrc, packet.sequence)) {
        this.counters.late++;
        return;
      }
      const samples = this.negotiated.codec === "PCMU"
        ? mulawDecode(packet.payload)
        : alawDecode(packet.payload);
      this.counters.received++;
      if (loud(samples)) this.counters.voicedMs += (samples.length / 8000) * 1000;
      this.onAudio(samples);
      for (const e of this.#dtmf.push(samples)) this.heardKey(e.key, "inband");
    } catch (e) {
      this.counters.refused++;
      this.#log(`an RTP packet could not be read: ${(e as Error)?.message ?? e}`);
    }
  }

  /**
   * Whether a packet comes after the last one handed on, as RFC 3550 §A.1 reads a
   * stream: a new SSRC starts a new stream; a jump far back is a restart once the next
   * packet follows it, else a stray one (dropped).
   */
  #inSequence(ssrc: number, seq: number): boolean {
    if (this.#farSsrc !== ssrc) {
      if (this.#farSsrc !== undefined) this.counters.restarts++;
      this.#farSsrc = ssrc;
      this.#lastSeq = seq;
      this.#badSeq = undefined;
      return true;
    }
    if (this.#lastSeq === undefined) {
      this.#lastSeq = seq;
      return true;
    }
    const delta = sequenceDelta(seq, this.#lastSeq);
    if (delta > 0) {
      this.#lastSeq = seq;
      this.#badSeq = undefined;
      return true;
    }
    if (delta < -MAX_MISORDER) {
      if (this.#badSeq === seq) {
        this.counters.restarts++;
        this.#lastSeq = seq;
        this.#badSeq = undefined;
        return true;
      }
      this.#badSeq = (seq + 1) & 0xffff;
    }
    return false;
  }
}

/** Whether a packet's audio is louder than -40 dBFS. */
function loud(samples: Int16Array): boolean {
  if (samples.length === 0) return false;
  let sum = 0;
  for (const x of samples) sum += x * x;
  return Math.sqrt(sum / samples.length) > 32768 * 0.01;
}
