/**
 * The media side of one SIP call, without the sockets: what callbench sends as RTP to
 * a phone agent and how it takes the agent's RTP, on any `Clock` (a `SimClock` in
 * tests, the real clock on the wire). Signalling is `./sip.ts`; this file starts once
 * the SDP answer has fixed the codec, the payload types and the agent's RTP address.
 *
 * - Out: the caller's audio as continuous 20 ms G.711 packets (PCMU or PCMA) on a fixed
 *   grid (`src/audio/pacer.ts`), silence when the caller is quiet, with one SSRC, a
 *   sequence number per packet and a timestamp that grows by 160 a packet. Keys go as
 *   RFC 4733 telephone-events on the same stream ({@link SipCall.press}): updates every
 *   20 ms on the press's timestamp, the first with the marker bit, the end three times.
 * - In: packets from the agent's negotiated address and port, of the negotiated audio or
 *   telephone-event payload type. Audio waits in a small jitter buffer
 *   ({@link SIP_JITTER_MS}) that puts it back in sequence order (a packet later than its
 *   turn is dropped and counted) and is played out in real time; what plays goes through
 *   the VAD (`src/audio/vad.ts`) and each stretch of speech becomes one agent turn,
 *   placed at the time its first packet arrived. Telephone-events are the agent's keys,
 *   each press heard once. In-band tones in its audio are keys too, when asked.
 * - Ignored and counted: packets from another address or port, of another payload type,
 *   or not RTP at all. Past {@link MAX_IGNORED_PACKETS} of them, or past the flood bounds
 *   of `./flood_bounds.ts` (audio a minute ahead of real time, a turn over two minutes),
 *   `onBound` is told once and the call takes nothing more.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { alawDecode, alawEncode } from "../audio/alaw.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { type PacedChunk, Pacer } from "../audio/pacer.ts";
import type { RtpSource } from "./rtp_socket.ts";
import { latenessOf } from "../audio/lateness.ts";
import { SentMarks } from "../audio/sent_marks.ts";
import { placeArrived } from "../audio/arrival.ts";
import { BELOW_ACTIVE_DB, FLOOR_DBFS } from "../audio/energy.ts";
import { meanPower16, powerDbfs } from "../audio/pcm.ts";
import { SpeechSegmenter, type Vad } from "../audio/vad.ts";
import { DtmfDetector } from "../audio/dtmf.ts";
import {
  buildRtp,
  parseRtp,
  sequenceDelta,
  telephoneEventPackets,
  TelephoneEventReceiver,
} from "../protocol/rtp.ts";
import type { NegotiatedMedia } from "../protocol/sdp.ts";
import {
  AUDIO_AHEAD_EXCEEDED,
  audioAheadBucket,
  type LeakyBucket,
  MAX_TURN_AUDIO_MS,
  TURN_AUDIO_EXCEEDED,
} from "./flood_bounds.ts";

/** G.711's sample rate. */
export const SIP_RATE = 8000;
/** One packet of audio, ms... */
export const SIP_FRAME_MS = 20;
/** ...and samples. */
export const SIP_FRAME_SAMPLES = (SIP_RATE * SIP_FRAME_MS) / 1000;
/** How long a received packet waits for the ones before it (reordering), ms. */
export const SIP_JITTER_MS = 40;
/** Packets callbench ignores (wrong source, payload type, not RTP) before `onBound`. */
export const MAX_IGNORED_PACKETS = 500;
/** A key press sent as telephone-events: held this long, then this gap to the next. */
export const KEY_PRESS_MS = 100;
export const KEY_GAP_MS = 100;
/** Audio kept before a detected speech start (1 s), as on the Twilio wire. */
const PRE_ROLL_FRAMES = 50;
/** The line's silence this long ends a pre-roll. */
const HOLE_MS = 200;

/** One agent turn, as the caller heard it. */
export interface SipHeardTurn {
  /** PCM16 at 8 kHz, from its first packet of agent audio, placed as it arrived. */
  samples: Int16Array;
  /** Call time the speech started and ended (VAD). */
  startMs: number;
  /** Call time `samples[0]` arrived. */
  audioStartMs: number;
  endMs: number;
}

export interface SipCallOptions {
  clock: Clock;
  /** What the SDP answer fixed: codec, payload types, the agent's RTP address. */
  media: NegotiatedMedia;
  /** Our SSRC. */
  ssrc: number;
  /** First sequence number and timestamp (random on the wire, RFC 3550 section 5.1). */
  sequence?: number;
  timestamp?: number;
  /** Sends one RTP packet to the agent's RTP address. */
  send: (packet: Uint8Array) => void;
  /** A VAD at 8 kHz, 20 ms frames. */
  vad: Vad;
  onSpeechStart?: (atMs: number) => void;
  onTurn: (turn: SipHeardTurn) => void;
  /**
   * A key the agent pressed: `event` from telephone-event, `tone` from in-band audio;
   * `atMs` is when it arrived (a tone: when its first confirming block's audio arrived,
   * not when playback, 40 ms of jitter buffer and the detector later, found it).
   */
  onKey?: (key: string, how: "event" | "tone", atMs: number) => void;
  /** Decode in-band tones in the agent's audio as keys too. */
  inbandKeys?: boolean;
  /** The line's noise for the silence in a caller frame (`LineAudio.fill`). */
  fill?: (samples: Int16Array, from: number, atMs: number, sampleRate: number) => void;
  onSpeaking?: () => void;
  /** VAD hysteresis: silence that ends a turn (default 600 ms). */
  minSilenceMs?: number;
  /** A bound was passed (see the module doc): told once; the call takes nothing more. */
  onBound?: (what: string) => void;
}

/** Counters of what crossed the RTP stream, for the record. */
export interface SipCallStats {
  codec: NegotiatedMedia["codec"];
  /** Caller packets sent (audio), and their ms, and the speech in them. */
  sentPackets: number;
  sentMs: number;
  sentSpeechMs: number;
  /** Telephone-event packets sent, and keys. */
  sentEventPackets: number;
  keysSent: number;
  /** Agent audio packets taken, and their ms. */
  receivedPackets: number;
  receivedMs: number;
  /** Packets that arrived out of order and were put back in line. */
  reordered: number;
  /** Packets that came after their turn to play had passed (dropped). */
  tooLate: number;
  /** Sequence numbers never seen (the line lost them). */
  lost: number;
  /** Agent keys heard as telephone-events. */
  keysHeard: number;
  /** Ignored: from another address or port; of a payload type not negotiated; not RTP. */
  ignoredSource: number;
  ignoredPayloadType: number;
  malformed: number;
  /** How late the caller's packets went out after their slot on the 20 ms grid (ms). */
  late_ms: { p50: number; p99: number; max: number };
}

interface PlayedFrame {
  samples: Int16Array;
  audio: Int16Array;
  arrivedAt: number | undefined;
}

/**
 * The frames of a turn's start, from the played ones before its speech was detected.
 * An agent that began sending after a hole in its stream (`leadIn`: it sends only while
 * it speaks) starts its turn at its first frame of audio, its silence pad included, as
 * far back as the pre-roll goes. A stream that was flowing already (an agent that sends
 * RTP all the time, as phones do, silence between its turns and from the call's start)
 * has no lead-in of its own: its turn starts at its speech, the first of the frames
 * before detection that stand above the line's silence by the energy measure's margin
 * (`src/audio/energy.ts`), not at the jitter buffer's first packet up to a second
 * earlier.
 */
function preRoll(recent: readonly PlayedFrame[], leadIn: boolean): PlayedFrame[] {
  const first = recent.findIndex((f) => f.arrivedAt !== undefined);
  if (first < 0) return recent.slice(-1);
  if (leadIn && first > 0) return recent.slice(first);
  const levels = recent.map((f) => powerDbfs(meanPower16(f.samples, 0, f.samples.length)));
  const peak = Math.max(...levels);
  const threshold = Math.max(FLOOR_DBFS, peak - BELOW_ACTIVE_DB);
  let start = recent.length - 1;
  while (start > 0 && levels[start - 1]! >= threshold) start--;
  return recent.slice(start);
}

/** The media of one SIP call. */
export class SipCall {
  readonly #o: SipCallOptions;
  readonly #encode: (s: Int16Array) => Uint8Array;
  readonly #decode: (b: Uint8Array) => Int16Array;
  readonly #caller: Pacer;
  readonly #callerMarks = new SentMarks(SIP_RATE);
  readonly #playback: Pacer;
  readonly #segmenter: SpeechSegmenter;
  readonly #events = new TelephoneEventReceiver();
  readonly #dtmf?: DtmfDetector;
  readonly #ahead: LeakyBucket;
  #sequence: number;
  #timestamp: number;
  /** Keys waiting to be sent, and whether a press is being sent. */
  #keys: string[] = [];
  #pressing = false;
  #cancels = new Set<() => void>();
  /** Jitter buffer: packets by extended sequence, with when they arrived. */
  #held = new Map<number, { samples: Int16Array; at: number }>();
  /** The next extended sequence to play; undefined before the first packet. */
  #next: number | undefined;
  #highest: number | undefined;
  #releasedAny = false;
  #playStart = 0;
  #recent: PlayedFrame[] = [];
  #turn?: { startMs: number; audioStartMs: number; chunks: PlayedFrame[] };
  #playedAudio = 0;
  #fillRun = 0;
  /** The agent's audio began after a hole of at least {@link HOLE_MS} (not a continuous stream). */
  #leadIn = false;
  #arrivals: { from: number; at: number }[] = [];
  #arrivedTotal = 0;
  #begun = false;
  #ended = false;
  #over = false;
  #late: number[] = [];
  /** The last frames the tone detector took: where each began in its stream, and when it arrived. */
  #toneFrames: { from: number; at: number }[] = [];
  #tonePushed = 0;
  readonly #stats: Omit<SipCallStats, "late_ms">;

  constructor(options: SipCallOptions) {
    this.#o = options;
    const pcma = options.media.codec === "PCMA";
    this.#encode = pcma ? alawEncode : mulawEncode;
    this.#decode = pcma ? alawDecode : mulawDecode;
    this.#sequence = options.sequence ?? 0;
    this.#timestamp = options.timestamp ?? 0;
    this.#ahead = audioAheadBucket(options.clock);
    if (options.inbandKeys) this.#dtmf = new DtmfDetector({ sampleRate: SIP_RATE });
    this.#stats = {
      codec: options.media.codec,
      sentPackets: 0,
      sentMs: 0,
      sentSpeechMs: 0,
      sentEventPackets: 0,
      keysSent: 0,
      receivedPackets: 0,
      receivedMs: 0,
      reordered: 0,
      tooLate: 0,
      lost: 0,
      keysHeard: 0,
      ignoredSource: 0,
      ignoredPayloadType: 0,
      malformed: 0,
    };
    this.#segmenter = new SpeechSegmenter({
      frameMs: SIP_FRAME_MS,
      minSilenceMs: options.minSilenceMs ?? 600,
    });
    this.#caller = new Pacer({
      clock: options.clock,
      sampleRate: SIP_RATE,
      chunkMs: SIP_FRAME_MS,
      onChunk: (chunk) => this.#sendChunk(chunk),
    });
    this.#playback = new Pacer({
      clock: options.clock,
      sampleRate: SIP_RATE,
      chunkMs: SIP_FRAME_MS,
      onChunk: (chunk) => this.#played(chunk),
    });
  }

  /** Starts streaming (silence until the caller speaks) and playing out. */
  begin(): void {
    if (this.#begun || this.#ended) return;
    this.#begun = true;
    this.#playStart = this.#o.clock.now();
    this.#caller.start();
    this.#playback.start();
  }

  /**
   * Queues the caller's speech (PCM16 at 8 kHz); resolves once it has been sent.
   * `onSent` hears the time its first sample went out, and its slot on the grid.
   */
  speak(samples: Int16Array, onSent?: (atMs: number, gridMs: number) => void): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#callerMarks.queued(samples.length, onSent);
    this.#caller.enqueue(samples);
    return this.#caller.drained();
  }

  /** The caller pressed keys: RFC 4733 telephone-events, one press after the other. */
  press(keys: string): void {
    if (this.#ended || !this.#begun || this.#o.media.telephoneEvent === undefined) return;
    this.#keys.push(...keys);
    if (!this.#pressing) this.#nextKey();
  }

  /** Whether keys can go as telephone-events (the agent accepted the payload type). */
  get canSendEvents(): boolean {
    return this.#o.media.telephoneEvent !== undefined;
  }

  /**
   * Handles one datagram on our RTP port; `atMs` is when it arrived, on the call's clock
   * (default now: a socket read on a busy thread reads it later than it came).
   */
  receive(bytes: Uint8Array, from: RtpSource, atMs?: number): void {
    if (!this.#begun || this.#ended || this.#over) return;
    const { media } = this.#o;
    if (from.address !== media.remoteAddress || from.port !== media.remotePort) {
      this.#stats.ignoredSource++;
      return this.#ignored();
    }
    const read = parseRtp(bytes);
    if (!read.ok) {
      this.#stats.malformed++;
      return this.#ignored();
    }
    const p = read.packet;
    if (media.telephoneEvent !== undefined && p.payloadType === media.telephoneEvent) {
      const key = this.#events.push(p.timestamp, p.payload);
      if (key) {
        this.#stats.keysHeard++;
        this.#o.onKey?.(key, "event", Math.min(atMs ?? this.#o.clock.now(), this.#o.clock.now()));
      }
      return;
    }
    if (p.payloadType !== media.payloadType) {
      this.#stats.ignoredPayloadType++;
      return this.#ignored();
    }
    const ms = (p.payload.length * 1000) / SIP_RATE;
    if (!this.#ahead.add(Math.max(SIP_FRAME_MS, ms))) return this.#bound(AUDIO_AHEAD_EXCEEDED);
    this.#take(p.sequence, this.#decode(p.payload), atMs);
  }

  /** Ends the call's media: a turn in progress ends, nothing more is sent or taken. */
  end(): void {
    if (this.#ended) return;
    this.#release(Infinity);
    for (const e of this.#segmenter.flush()) if (e.type === "end") this.#endTurn(e.atMs);
    this.#ended = true;
    this.#caller.stop();
    this.#playback.stop();
    for (const cancel of this.#cancels) cancel();
    this.#cancels.clear();
  }

  get stats(): SipCallStats {
    return { ...this.#stats, late_ms: latenessOf(this.#late) };
  }

  #ignored(): void {
    const s = this.#stats;
    const n = s.ignoredSource + s.ignoredPayloadType + s.malformed;
    if (n > MAX_IGNORED_PACKETS) {
      this.#bound(
        `sent more than ${MAX_IGNORED_PACKETS} RTP packets callbench ignores (${s.ignoredSource} from another address, ${s.ignoredPayloadType} of a payload type not negotiated, ${s.malformed} not RTP)`,
      );
    }
  }

  #sendChunk(chunk: PacedChunk): void {
    if (this.#ended) return;
    this.#callerMarks.sent(chunk);
    this.#late.push(chunk.sentAt - chunk.dueAt);
    this.#stats.sentMs += SIP_FRAME_MS;
    this.#stats.sentSpeechMs += (chunk.audioSamples * 1000) / SIP_RATE;
    let samples = chunk.samples;
    if (this.#o.fill && chunk.audioSamples < samples.length) {
      // In a copy: the pacer's chunk may be shared.
      samples = samples.slice();
      const at = chunk.dueAt + (chunk.audioSamples * 1000) / SIP_RATE;
      this.#o.fill(samples, chunk.audioSamples, at, SIP_RATE);
    }
    this.#o.send(buildRtp({
      payloadType: this.#o.media.payloadType,
      marker: this.#stats.sentPackets === 0,
      sequence: this.#sequence++,
      timestamp: this.#timestamp,
      ssrc: this.#o.ssrc,
      payload: this.#encode(samples),
    }));
    this.#timestamp = (this.#timestamp + SIP_FRAME_SAMPLES) >>> 0;
    this.#stats.sentPackets++;
  }

  #later(ms: number, fn: () => void): void {
    const cancel = this.#o.clock.timer(ms, () => {
      this.#cancels.delete(cancel);
      fn();
    });
    this.#cancels.add(cancel);
  }

  #nextKey(): void {
    const key = this.#keys.shift();
    if (key === undefined || this.#ended) {
      this.#pressing = false;
      return;
    }
    this.#pressing = true;
    this.#stats.keysSent++;
    const timestamp = this.#timestamp;
    const pt = this.#o.media.telephoneEvent!;
    const plan = telephoneEventPackets(key, { durationMs: KEY_PRESS_MS });
    for (const packet of plan) {
      const send = () => {
        if (this.#ended) return;
        this.#stats.sentEventPackets++;
        this.#o.send(buildRtp({
          payloadType: pt,
          marker: packet.marker,
          sequence: this.#sequence++,
          timestamp,
          ssrc: this.#o.ssrc,
          payload: packet.payload,
        }));
      };
      if (packet.atMs === 0) send();
      else this.#later(packet.atMs, send);
    }
    // The gap counts from the press's end (its 100 ms), not from the last end packet's
    // retransmission: presses start 200 ms apart, as PROTOCOL.md says.
    this.#later(KEY_PRESS_MS + KEY_GAP_MS, () => this.#nextKey());
  }

  /** An audio packet into the jitter buffer, by its extended sequence number, arrived `atMs`. */
  #take(sequence: number, samples: Int16Array, atMs: number | undefined): void {
    const now = this.#o.clock.now();
    const at = Math.min(atMs ?? now, now);
    const ext = this.#highest === undefined
      ? sequence
      : this.#highest + sequenceDelta(sequence, this.#highest & 0xffff);
    if (this.#releasedAny && ext < this.#next!) {
      this.#stats.tooLate++;
      return;
    }
    if (this.#held.has(ext)) return; // a duplicate
    if (this.#highest !== undefined && ext < this.#highest) this.#stats.reordered++;
    if (this.#highest === undefined || ext > this.#highest) this.#highest = ext;
    // Until one has played, the first in line is the lowest seen (the first may be late).
    if (this.#next === undefined || (!this.#releasedAny && ext < this.#next)) this.#next = ext;
    this.#stats.receivedPackets++;
    this.#stats.receivedMs += (samples.length * 1000) / SIP_RATE;
    this.#held.set(ext, { samples, at });
    this.#later(
      Math.max(0, at + SIP_JITTER_MS - now),
      () => this.#release(this.#o.clock.now() - SIP_JITTER_MS),
    );
  }

  /** Plays held packets in order: the next ones in line, and past gaps whose wait is over. */
  #release(arrivedBy: number): void {
    while (this.#next !== undefined && this.#held.size > 0) {
      const p = this.#held.get(this.#next);
      if (p) {
        // Each packet waits its time, so later ones that come out of order are in line.
        if (p.at > arrivedBy) return;
        this.#held.delete(this.#next);
        this.#next++;
        this.#releasedAny = true;
        this.#arrivals.push({ from: this.#arrivedTotal, at: p.at });
        this.#arrivedTotal += p.samples.length;
        this.#playback.enqueue(p.samples);
        continue;
      }
      // A gap: skip it once a later packet has waited its time.
      const waiting = Math.min(...[...this.#held.keys()]);
      if (this.#held.get(waiting)!.at > arrivedBy) return;
      this.#stats.lost += waiting - this.#next;
      this.#next = waiting;
    }
  }

  #arrivalOf(index: number): number {
    while (this.#arrivals.length > 1 && this.#arrivals[1]!.from <= index) this.#arrivals.shift();
    const a = this.#arrivals[0];
    if (!a) return this.#o.clock.now();
    return a.at + ((index - a.from) * 1000) / SIP_RATE;
  }

  #bound(what: string): void {
    if (this.#over) return;
    this.#over = true;
    this.#playback.clear();
    this.#held.clear();
    this.#turn = undefined;
    this.#o.onBound?.(what);
  }

  /** One 20 ms frame played to the caller: VAD, in-band keys, turn audio. */
  #played(chunk: PacedChunk): void {
    if (this.#ended || this.#over) return;
    const { samples, audioSamples } = chunk;
    const frame: PlayedFrame = {
      samples,
      audio: samples.subarray(0, audioSamples),
      arrivedAt: audioSamples > 0 ? this.#arrivalOf(this.#playedAudio) : undefined,
    };
    if (this.#dtmf) this.#tones(frame, chunk.dueAt);
    this.#playedAudio += audioSamples;
    if (frame.arrivedAt !== undefined && this.#fillRun > 0) {
      this.#leadIn = this.#fillRun * SIP_FRAME_MS >= HOLE_MS;
    }
    this.#fillRun = frame.arrivedAt === undefined ? this.#fillRun + 1 : 0;
    if (this.#turn) {
      this.#turn.chunks.push(frame);
      if (this.#turn.chunks.length * SIP_FRAME_MS > MAX_TURN_AUDIO_MS) {
        return this.#bound(TURN_AUDIO_EXCEEDED);
      }
      this.#o.onSpeaking?.();
    } else {
      if (this.#fillRun * SIP_FRAME_MS >= HOLE_MS) this.#recent = [];
      this.#recent.push(frame);
      if (this.#recent.length > PRE_ROLL_FRAMES) this.#recent.shift();
    }
    for (const e of this.#segmenter.push(this.#o.vad.process(samples))) {
      if (e.type === "start") {
        const startMs = this.#playStart + e.atMs;
        const chunks = preRoll(this.#recent, this.#leadIn);
        const audioStartMs = chunks[0]!.arrivedAt ?? chunk.dueAt;
        this.#turn = { startMs, audioStartMs, chunks };
        this.#recent = [];
        this.#o.onSpeechStart?.(startMs);
      } else this.#endTurn(e.atMs);
    }
  }

  /**
   * In-band keys in a played frame, each timed where its tone's audio arrived: the
   * detector reports a key a block or two after its tone began, in its own stream's time.
   */
  #tones(frame: PlayedFrame, dueAt: number): void {
    this.#toneFrames.push({ from: this.#tonePushed, at: frame.arrivedAt ?? dueAt });
    // The detector confirms a key within two of its 25.6 ms blocks: a few frames back.
    if (this.#toneFrames.length > 8) this.#toneFrames.shift();
    this.#tonePushed += frame.samples.length;
    for (const e of this.#dtmf!.push(frame.samples)) {
      const sample = Math.round((e.atMs * SIP_RATE) / 1000);
      const f = this.#toneFrames.findLast((t) => t.from <= sample) ?? this.#toneFrames[0]!;
      this.#o.onKey?.(e.key, "tone", f.at + ((sample - f.from) * 1000) / SIP_RATE);
    }
  }

  #endTurn(atMs: number): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (!turn) return;
    this.#o.onTurn({
      samples: placeArrived(
        turn.chunks.flatMap((c) =>
          c.arrivedAt === undefined ? [] : [{ samples: c.audio, at: c.arrivedAt }]
        ),
        SIP_RATE,
      )?.samples ?? new Int16Array(0),
      startMs: turn.startMs,
      audioStartMs: turn.audioStartMs,
      endMs: this.#playStart + atMs,
    });
  }
}
