/**
 * A ground-truth voice agent for the audio measures: it replies exactly D ms after the
 * caller's end of speech, so every latency callbench reports can be checked against a
 * known value. It is written from the wire formats' public descriptions (RTVI JSON
 * envelopes, pipecat's `Frame` protobuf, Twilio Media Streams, G.711 µ-law) and measures
 * the caller's end of speech itself, by the definition PROTOCOL.md gives ("Audio
 * measures"), without callbench's code.
 *
 * - The caller's audio is kept as a stream; the stream's time zero is the earliest
 *   arrival less its position (the pacing grid as this end sees it, free of late
 *   chunks). An utterance is a run of sound (10 ms frames above -70 dBFS) from its first
 *   non-zero sample, closed by 150 ms of digital silence; its end is the end of its last
 *   10 ms frame (counted from its first sample) at most 35 dB below its active level
 *   (the mean power of its frames within 20 dB of its loudest).
 * - It greets `greetMs` after the stream's time zero, then answers caller utterance i
 *   `delays[i]` ms after its end: the first speech sample goes out then. With
 *   `leadMs`, `leadMs` of low-level noise (-60 dBFS) comes first, so its first audio
 *   frame goes out `leadMs` earlier. Audio goes out in 20 ms frames on a real-time grid
 *   (24 kHz PCM16 on RTVI, 8 kHz µ-law on Twilio).
 * - On RTVI it brackets each reply: `bot-started-speaking` `earlyStartMs` before its
 *   first audio (to check that the audio, not the event, places the turn), its words as
 *   `bot-tts-text`, `bot-stopped-speaking` after the last frame.
 * - Barge-in (`bargeIn`): its replies are long; when the caller's audio rises above
 *   -40 dBFS over one (a 10 ms frame), it cuts that reply's audio to end `yieldMs` after
 *   that frame's start (null: it never stops), and logs where its audio really ended
 *   against the caller's onset by the energy definition (known once the caller's
 *   utterance has ended): the yield it produced.
 * - Keys: it sends `keys` as DTMF tones of its own making (100 ms each, 100 ms apart,
 *   with `keyLine`'s noise and twist) after its greeting, and hears the caller's keys
 *   with a Goertzel detector of its own (in band) and as RTVI `dtmf` messages or Twilio
 *   `dtmf` events, each with its time.
 *
 * Also an in-process {@link TruthParticipant} that does the same on any clock (the
 * simulated one: exact to the frame), and {@link TruthCaller}, a caller that speaks a
 * fixed list of lines, one after each agent turn it hears, then hangs up.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../src/bridge/call.ts";
import type { Pcm16 } from "../src/audio/pcm.ts";

export type TruthFraming = "json" | "protobuf" | "twilio";

// ---- the energy definition, independently ------------------------------------------

const FRAME_MS = 10;

function frameDb(samples: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  const p = sum / Math.max(1, to - from) / (32768 * 32768);
  return p > 0 ? 10 * Math.log10(p) : -Infinity;
}

/** The end of speech of `samples` (ms from its first sample) by the energy definition. */
export function truthSpeechEdges(
  samples: ArrayLike<number>,
  rate: number,
): { startMs: number; endMs: number } | undefined {
  const n = (rate * FRAME_MS) / 1000;
  const db: number[] = [];
  for (let at = 0; at < samples.length; at += n) {
    db.push(frameDb(samples, at, Math.min(samples.length, at + n)));
  }
  const peak = Math.max(...db);
  if (!(peak > -70)) return undefined;
  const active = db.filter((d) => d >= peak - 20);
  const level = 10 * Math.log10(active.reduce((s, d) => s + 10 ** (d / 10), 0) / active.length);
  const threshold = Math.max(-70, level - 35);
  const first = db.findIndex((d) => d >= threshold);
  let last = first;
  for (let f = 0; f < db.length; f++) if (db[f]! >= threshold) last = f;
  return {
    startMs: first * FRAME_MS,
    endMs: Math.min(samples.length, (last + 1) * n) * 1000 / rate,
  };
}

// ---- what it says ------------------------------------------------------------------

/** A reply: `leadMs` of -60 dBFS noise, then `speechMs` of a voiced signal at about -18 dBFS. */
export function truthReply(rate: number, leadMs: number, speechMs = 600, seed = 1): Int16Array {
  const lead = Math.round((leadMs * rate) / 1000);
  const speech = Math.round((speechMs * rate) / 1000);
  const out = new Int16Array(lead + speech);
  let x = seed >>> 0 || 1;
  const noise = 32768 * 10 ** (-60 / 20) * Math.sqrt(3);
  for (let i = 0; i < lead; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = Math.round((((x >>> 0) / 4294967296) * 2 - 1) * noise);
  }
  for (let i = 0; i < speech; i++) {
    const t = i / rate;
    const v = 0.5 * Math.sin(2 * Math.PI * 150 * t) + 0.3 * Math.sin(2 * Math.PI * 450 * t) +
      0.2 * Math.sin(2 * Math.PI * 1050 * t);
    out[lead + i] = Math.round(v * 32768 * 0.3 * (1 + 0.3 * Math.sin(2 * Math.PI * 4 * t)));
  }
  return out;
}

// ---- keys --------------------------------------------------------------------------

const KEYPAD = ["123A", "456B", "789C", "*0#D"];
const ROW_HZ = [697, 770, 852, 941];
const COL_HZ = [1209, 1336, 1477, 1633];
/** A key tone's and the gap's length, ms. */
export const KEY_TONE_MS = 100;

/** How the truth agent's own key tones are made: white noise `snrDb` below them, the row `twistDb` louder. */
export interface KeyLine {
  snrDb?: number;
  twistDb?: number;
  seed?: number;
}

/** `keys` as tones: each 100 ms of its row and column sines (-13 dBFS each), 100 ms apart. */
export function truthKeyTones(keys: string, rate: number, line: KeyLine = {}): Int16Array {
  const n = Math.round((rate * KEY_TONE_MS) / 1000);
  const out = new Float64Array(keys.length * 2 * n);
  const col = 7300;
  const row = col * 10 ** ((line.twistDb ?? 0) / 20);
  [...keys].forEach((key, k) => {
    const r = KEYPAD.findIndex((l) => l.includes(key));
    const c = KEYPAD[r]!.indexOf(key);
    for (let i = 0; i < n; i++) {
      const t = i / rate;
      out[2 * k * n + i] = row * Math.sin(2 * Math.PI * ROW_HZ[r]! * t) +
        col * Math.sin(2 * Math.PI * COL_HZ[c]! * t);
    }
  });
  if (line.snrDb !== undefined) {
    const rms = Math.sqrt((row * row + col * col) / 2 / 10 ** (line.snrDb / 10));
    let x = line.seed ?? 3;
    const u = () => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return (x + 0.5) / 4294967296;
    };
    for (let i = 0; i < out.length; i++) {
      out[i]! += rms * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    }
  }
  return Int16Array.from(out, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/**
 * A streaming Goertzel key detector of its own: 20 ms windows every 10 ms; a window
 * shows a key when one row and one column stand 8 dB over the others of their group,
 * within 8 dB of each other, and hold over half the window's energy, above -50 dBFS.
 * Three windows in a row with the key (40 ms of tone) confirm it, at the first one's
 * start; two without release it; the same key within 80 ms of its last is not new.
 */
export class TruthDtmfDetector {
  readonly #n: number;
  readonly #hop: number;
  readonly #coeff: number[];
  #window: number[] = [];
  #at = 0;
  #run: { key: string; at: number; windows: number } | undefined;
  #held: string | undefined;
  #misses = 0;
  readonly #last = new Map<string, number>();

  constructor(readonly rate: number) {
    this.#n = Math.round(rate * 0.02);
    this.#hop = this.#n / 2;
    this.#coeff = [...ROW_HZ, ...COL_HZ].map((f) => 2 * Math.cos((2 * Math.PI * f) / rate));
  }

  /** Keys confirmed by these samples, each at its sample index from the first pushed. */
  push(samples: ArrayLike<number>): { key: string; at: number }[] {
    const out: { key: string; at: number }[] = [];
    for (let i = 0; i < samples.length; i++) {
      this.#window.push(samples[i]!);
      if (this.#window.length < this.#n) continue;
      const key = this.#classify(this.#window);
      const at = this.#at;
      this.#at += this.#hop;
      this.#window = this.#window.slice(this.#hop);
      if (key === undefined) {
        this.#run = undefined;
        if (++this.#misses >= 2) this.#held = undefined;
        continue;
      }
      this.#misses = 0;
      if (this.#run?.key !== key) this.#run = { key, at, windows: 0 };
      if (++this.#run.windows === 3 && key !== this.#held) {
        this.#held = key;
        // The same key again within a shortest tone and gap (40 + 40 ms, ITU-T Q.24) is
        // the one tone, broken.
        const last = this.#last.get(key);
        if (last === undefined || this.#run.at - last >= (80 * this.rate) / 1000) {
          out.push({ key, at: this.#run.at });
        }
        this.#last.set(key, this.#run.at);
      }
    }
    return out;
  }

  #classify(x: number[]): string | undefined {
    let energy = 0;
    for (const v of x) energy += v * v;
    if (energy / x.length < (32768 * 10 ** (-50 / 20)) ** 2) return undefined;
    const p = this.#coeff.map((c) => {
      let s1 = 0;
      let s2 = 0;
      for (const v of x) {
        const s = v + c * s1 - s2;
        s2 = s1;
        s1 = s;
      }
      // |X|² * 2 / N: the energy of a sine at that frequency.
      return ((s1 * s1 + s2 * s2 - c * s1 * s2) * 2) / x.length;
    });
    const best = (from: number) => {
      const group = p.slice(from, from + 4);
      const top = group.indexOf(Math.max(...group));
      const other = Math.max(...group.filter((_, i) => i !== top));
      return { top, power: group[top]!, clear: group[top]! >= 6.3 * other };
    };
    const r = best(0);
    const c = best(4);
    if (!r.clear || !c.clear) return undefined;
    if (r.power > 6.3 * c.power || c.power > 6.3 * r.power) return undefined;
    if (r.power + c.power < 0.5 * energy) return undefined;
    return KEYPAD[r.top]![c.top];
  }
}

// ---- wire pieces -------------------------------------------------------------------

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function unbase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function le16(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  samples.forEach((v, i) => view.setInt16(i * 2, v, true));
  return out;
}

function fromLe16(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** G.711 µ-law, by the standard's segment formula. */
function ulawEncode(v: number): number {
  const BIAS = 0x84;
  let sign = 0;
  if (v < 0) {
    sign = 0x80;
    v = -v;
  }
  v = Math.min(v, 32635) + BIAS;
  let exp = 7;
  for (let mask = 0x4000; (v & mask) === 0 && exp > 0; mask >>= 1) exp--;
  const mantissa = (v >> (exp + 3)) & 0x0f;
  return ~(sign | (exp << 4) | mantissa) & 0xff;
}

function ulawDecode(b: number): number {
  b = ~b & 0xff;
  const exp = (b >> 4) & 0x07;
  const mag = ((((b & 0x0f) << 3) + 0x84) << exp) - 0x84;
  return b & 0x80 ? -mag : mag;
}

// Protobuf, the few shapes of pipecat's Frame this needs.
function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

function field(no: number, bytes: Uint8Array): number[] {
  return [...varint((no << 3) | 2), ...varint(bytes.length), ...bytes];
}

function audioFrame(samples: Int16Array, rate: number): Uint8Array {
  const inner = [
    ...field(2, new TextEncoder().encode("audio")),
    ...field(3, le16(samples)),
    ...varint((4 << 3) | 0),
    ...varint(rate),
    ...varint((5 << 3) | 0),
    ...varint(1),
  ];
  return new Uint8Array(field(2, new Uint8Array(inner)));
}

function messageFrame(json: string): Uint8Array {
  return new Uint8Array(field(4, new Uint8Array(field(1, new TextEncoder().encode(json)))));
}

/** The fields of one protobuf message: number -> last value (bytes or a number). */
function fields(buf: Uint8Array): Map<number, Uint8Array | number> {
  const out = new Map<number, Uint8Array | number>();
  let at = 0;
  const read = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = buf[at++]!;
      n += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return n;
    }
  };
  while (at < buf.length) {
    const tag = read();
    const wire = tag & 7;
    if (wire === 0) out.set(tag >>> 3, read());
    else if (wire === 2) {
      const len = read();
      out.set(tag >>> 3, buf.subarray(at, at + len));
      at += len;
    } else throw new Error(`wire type ${wire}`);
  }
  return out;
}

/** How late the caller's chunks arrived against their grid (ms above the earliest): p50, p99, max. */
export function arrivalJitter(session: TruthSession): { p50: number; p99: number; max: number } {
  const min = Math.min(...session.offsets);
  const late = session.offsets.map((o) => o - min).sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: late[late.length - 1] ?? 0 };
}

// ---- the agent on a socket ---------------------------------------------------------

export interface TruthAgentOptions {
  /** Delay after each caller utterance's end, ms (one per utterance; the last repeats). */
  delays: readonly number[];
  /** Low-level noise before each reply's speech, ms (0: none). */
  leadMs?: number;
  /** Greeting's speech this long after the stream began (default 500 ms). */
  greetMs?: number;
  /** RTVI: `bot-started-speaking` this long before the first audio frame (default 400). */
  earlyStartMs?: number;
  speechMs?: number;
  /**
   * Barge-in: replies (not the greeting) last `speechMs` (default 5000); one the caller
   * speaks over is cut to end `yieldMs` after the caller's onset (null: never cut). A
   * reply starts no earlier than 1 s (plus `earlyStartMs`) after the one before has ended.
   */
  bargeIn?: { yieldMs: number | null; speechMs?: number };
  /** Keys it sends as tones, 300 ms after its greeting; with keys (even "") it replies to nobody. */
  keys?: string;
  /** How its tones are made (noise, twist). */
  keyLine?: KeyLine;
}

/** A caller barge-in over one of its replies, as the agent produced it (performance.now() ms). */
export interface TruthBargeLog {
  /** The reply (its `answers`) spoken over. */
  answers: number;
  /** The start of the caller's first 10 ms frame above -40 dBFS over it. */
  detectedAt: number;
  /** The caller's onset by the energy definition (NaN until its utterance has ended). */
  onsetAt: number;
  /** Where it meant its audio to end (Infinity: it never stops). */
  cutAt: number;
  /** Where its audio ended on its grid (as the caller places late frames): NaN until then. */
  audioEndAt: number;
  /** The yield it produced: `audioEndAt - onsetAt`. */
  yieldMs: number;
}

/** One reply as the agent made it (times in performance.now() ms). */
export interface TruthReplyLog {
  /** 0 for the greeting; else the caller utterance (from 1) it answers. */
  answers: number;
  /** The delay it was to keep after the caller's end (greetMs for the greeting). */
  delayMs: number;
  /** The caller's end of speech, by the stream's clock (the stream's zero for the greeting). */
  callerEndAt: number;
  /** Its utterance's last non-zero sample's end (the end of its audio), same clock. */
  callerAudioEndAt: number;
  /**
   * When its first audio frame and its first speech sample went out (a lead is shorter
   * than asked when its start had passed before the caller's end was heard).
   */
  firstFrameAt: number;
  speechAt: number;
}

export interface TruthSession {
  framing: TruthFraming;
  replies: TruthReplyLog[];
  /** Caller utterances heard. */
  utterances: number;
  /** Each one's start and end of speech by the stream's clock (performance.now() ms). */
  heard: { startAt: number; endAt: number }[];
  /** The stream's time zero as estimated after each utterance. */
  zeros: number[];
  /** Each caller chunk's arrival less its place on the stream's grid, ms. */
  offsets: number[];
  /** Client messages seen (RTVI types, Twilio events). */
  messages: string[];
  /** Barge-ins over its replies. */
  bargeIns: TruthBargeLog[];
  /** Its own key tones: each key and when its tone's first sample went out. */
  keysSent: { key: string; at: number }[];
  /** Keys its detector heard in the caller's audio, at their start by the stream's clock. */
  keysHeard: { key: string; at: number }[];
  /** Keys that came as RTVI `dtmf` messages or Twilio `dtmf` events, at their arrival. */
  keyEvents: { key: string; at: number }[];
}

/** Starts the truth agent on a free loopback port; `url` serves every framing. */
export function startTruthAgent(options: TruthAgentOptions) {
  const sessions: TruthSession[] = [];
  const sockets = new Set<WebSocket>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    sockets.add(socket);
    const session: TruthSession = {
      framing: "json",
      replies: [],
      utterances: 0,
      heard: [],
      zeros: [],
      offsets: [],
      messages: [],
      bargeIns: [],
      keysSent: [],
      keysHeard: [],
      keyEvents: [],
    };
    sessions.push(session);
    runSession(socket, session, options);
    socket.addEventListener("close", () => sockets.delete(socket));
    return response;
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `ws://127.0.0.1:${port}/agent`,
    sessions,
    async close() {
      for (const s of sockets) s.close(1000, "bye");
      await server.shutdown();
    },
  };
}

function runSession(socket: WebSocket, session: TruthSession, o: TruthAgentOptions): void {
  const leadMs = o.leadMs ?? 0;
  const early = o.earlyStartMs ?? 400;
  let rate = 16000;
  let streamSid = "";
  /** The caller's stream: samples, and the grid's zero (ms). */
  const heard: number[] = [];
  let zero = Infinity;
  let greeted = false;
  /** Where the current utterance began (sample index) and the silence after it. */
  let uttStart = -1;
  let quietFrames = 0;
  let scanned = 0;
  let closed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const at = (t: number, fn: () => void) => {
    const id = setTimeout(() => {
      timers.delete(id);
      if (!closed) fn();
    }, Math.max(0, t - performance.now()));
    timers.add(id);
  };
  socket.addEventListener("close", () => {
    closed = true;
    for (const t of timers) clearTimeout(t);
  });
  const send = (data: string | Uint8Array) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(data);
  };
  const rtviSend = (type: string, data?: unknown, id?: string) => {
    const json = JSON.stringify({
      label: "rtvi-ai",
      type,
      ...(id !== undefined ? { id } : {}),
      ...(data !== undefined ? { data } : {}),
    });
    send(session.framing === "protobuf" ? messageFrame(json) : json);
  };
  const sendAudio = (samples: Int16Array) => {
    if (session.framing === "twilio") {
      const mulaw = new Uint8Array(samples.length);
      samples.forEach((v, i) => mulaw[i] = ulawEncode(v));
      send(JSON.stringify({ event: "media", streamSid, media: { payload: base64(mulaw) } }));
    } else if (session.framing === "protobuf") send(audioFrame(samples, 24000));
    else {
      rtviSend("bot-tts-audio", {
        audio: base64(le16(samples)),
        sample_rate: 24000,
        num_channels: 1,
      });
    }
  };

  const outRate = () => (session.framing === "twilio" ? 8000 : 24000);
  /** The reply playing (or queued) last: where its audio ends on its grid, and its cut. */
  let current:
    | { answers: number; firstAt: number; end: () => number; cut: (at: number) => void }
    | undefined;
  /** The barge-in whose caller utterance has not yet ended. */
  let barge: TruthBargeLog | undefined;

  /**
   * Plays `audio` from `firstAt` in 20 ms frames on a real-time grid (frames whose time
   * has passed before the first is sent are skipped up to `skippable`); `onFrame` hears
   * each frame's index as it goes out, `onEnd` when the last is out, with where the
   * audio ended on its grid.
   */
  const play = (
    audio: { samples: Int16Array },
    firstAt: number,
    skippable: number,
    onFrame: (k: number) => void,
    onEnd: (endAt: number) => void,
  ) => {
    const rate = outRate();
    const frame = (rate * 20) / 1000;
    let k = 0;
    const tick = () => {
      const now = performance.now();
      if (k === 0) k = Math.min(skippable, Math.max(0, Math.floor((now - firstAt) / 20)));
      while (k * frame < audio.samples.length && firstAt + k * 20 <= now) {
        const chunk = audio.samples.subarray(k * frame, (k + 1) * frame);
        onFrame(k);
        sendAudio(chunk);
        k++;
      }
      if (k * frame < audio.samples.length) return at(firstAt + k * 20, tick);
      // Where it ended on its grid: late frames go out together and are heard back in
      // line (PROTOCOL.md, Turns), so the grid is where the caller hears them.
      onEnd(firstAt + (audio.samples.length * 1000) / rate);
    };
    at(firstAt, tick);
  };

  /** Speech to begin at `speechAt` (its lead earlier), in 20 ms frames on a real-time grid. */
  const reply = (answers: number, delayMs: number, callerEndAt: number, audioEndAt = 0) => {
    const rate = outRate();
    const long = o.bargeIn !== undefined && answers > 0;
    const speechMs = long ? o.bargeIn!.speechMs ?? 5000 : o.speechMs;
    const audio = { samples: truthReply(rate, leadMs, speechMs, answers + 1) };
    let speechAt = callerEndAt + delayMs;
    // Barge-in: one reply at a time (an agent that never stops answers after it, its
    // `bot-started-speaking` after the last one's `bot-stopped-speaking`).
    if (o.bargeIn && current) speechAt = Math.max(speechAt, current.end() + early + 1000 + leadMs);
    const firstAt = speechAt - leadMs;
    const frame = (rate * 20) / 1000;
    const log: TruthReplyLog = {
      answers,
      delayMs,
      callerEndAt,
      callerAudioEndAt: audioEndAt,
      firstFrameAt: 0,
      speechAt: 0,
    };
    session.replies.push(log);
    const rtvi = session.framing !== "twilio";
    if (rtvi) at(firstAt - early, () => rtviSend("bot-started-speaking"));
    const leadFrames = Math.round((leadMs * rate) / 1000) / frame;
    const me = {
      answers,
      firstAt,
      end: () => firstAt + (audio.samples.length * 1000) / rate,
      cut: (cutAt: number) => {
        const keep = Math.max(0, Math.round(((cutAt - firstAt) * rate) / 1000));
        if (keep < audio.samples.length) audio.samples = audio.samples.subarray(0, keep);
      },
    };
    current = me;
    // Frames of the lead whose time has passed (the end was heard late) are skipped,
    // so the speech still starts on time.
    play(audio, firstAt, leadFrames, (k) => {
      if (log.firstFrameAt === 0) log.firstFrameAt = performance.now();
      if (k === leadFrames) log.speechAt = performance.now();
    }, (endAt) => {
      for (const b of session.bargeIns) {
        if (b.answers === answers) {
          b.audioEndAt = endAt;
          b.yieldMs = endAt - b.onsetAt;
        }
      }
      if (current === me) current = undefined;
      if (rtvi) {
        rtviSend("bot-tts-text", { text: answers === 0 ? "Hello there." : `Reply ${answers}.` });
        rtviSend("bot-stopped-speaking");
      }
    });
  };

  /** Its keys as tones, from `firstAt`. */
  const sendKeys = (keys: string, firstAt: number) => {
    const tones = { samples: truthKeyTones(keys, outRate(), o.keyLine) };
    play(tones, firstAt, 0, (k) => {
      // A key's tone starts every 200 ms: 10 frames.
      if (k % 10 === 0) session.keysSent.push({ key: keys[k / 10]!, at: performance.now() });
    }, () => {});
  };

  const detectors = new Map<number, TruthDtmfDetector>();
  /** Caller audio: the stream's zero, then its utterances, frame by frame. */
  const hear = (samples: ArrayLike<number>, sampleRate: number) => {
    rate = sampleRate;
    const now = performance.now();
    session.offsets.push(now - (heard.length * 1000) / rate);
    zero = Math.min(zero, now - (heard.length * 1000) / rate);
    let detector = detectors.get(rate);
    if (!detector) detectors.set(rate, detector = new TruthDtmfDetector(rate));
    for (const k of detector.push(samples)) {
      session.keysHeard.push({ key: k.key, at: zero + (k.at * 1000) / rate });
    }
    for (let i = 0; i < samples.length; i++) heard.push(samples[i]!);
    if (!greeted) {
      greeted = true;
      reply(0, o.greetMs ?? 500, zero);
      if (o.keys) sendKeys(o.keys, current!.end() + 300);
    }
    const n = (rate * FRAME_MS) / 1000;
    while (scanned + n <= heard.length) {
      const db = frameDb(heard, scanned, scanned + n);
      const sound = db > -70;
      const frameAt = zero + (scanned * 1000) / rate;
      // The caller speaks over a reply (not the greeting) still playing.
      if (
        o.bargeIn && db > -40 && barge === undefined && current !== undefined &&
        current.answers > 0 && current.firstAt <= frameAt && frameAt < current.end() &&
        !session.bargeIns.some((b) => b.answers === current!.answers)
      ) {
        const cutAt = o.bargeIn.yieldMs === null ? Infinity : frameAt + o.bargeIn.yieldMs;
        barge = {
          answers: current.answers,
          detectedAt: frameAt,
          onsetAt: NaN,
          cutAt,
          audioEndAt: NaN,
          yieldMs: NaN,
        };
        session.bargeIns.push(barge);
        current.cut(cutAt);
      }
      if (sound) {
        // The utterance's own frames start at its first sample (not the stream's 10 ms grid).
        if (uttStart < 0) {
          uttStart = scanned;
          while (heard[uttStart] === 0) uttStart++;
        }
        quietFrames = 0;
      } else if (uttStart >= 0 && ++quietFrames * FRAME_MS >= 150) {
        const edges = truthSpeechEdges(heard.slice(uttStart, scanned + n), rate);
        if (edges) {
          session.utterances++;
          const i = session.utterances;
          const delay = o.delays[Math.min(i, o.delays.length) - 1]!;
          const startAt = zero + (uttStart * 1000) / rate;
          session.heard.push({ startAt: startAt + edges.startMs, endAt: startAt + edges.endMs });
          session.zeros.push(zero);
          if (barge) {
            barge.onsetAt = startAt + edges.startMs;
            barge.yieldMs = barge.audioEndAt - barge.onsetAt;
            barge = undefined;
          }
          let last = scanned + n - 1;
          while (last > uttStart && heard[last] === 0) last--;
          if (o.keys === undefined) {
            reply(i, delay, startAt + edges.endMs, zero + ((last + 1) * 1000) / rate);
          }
        }
        uttStart = -1;
        quietFrames = 0;
      }
      scanned += n;
    }
  };

  socket.onmessage = (event) => {
    const data = event.data as string | ArrayBuffer;
    if (typeof data !== "string") {
      session.framing = "protobuf";
      const frame = fields(new Uint8Array(data));
      const audio = frame.get(2);
      if (audio instanceof Uint8Array) {
        const f = fields(audio);
        return hear(fromLe16(f.get(3) as Uint8Array), f.get(4) as number);
      }
      const message = frame.get(4);
      if (message instanceof Uint8Array) {
        const text = new TextDecoder().decode(fields(message).get(1) as Uint8Array);
        return onJson(JSON.parse(text));
      }
      return;
    }
    onJson(JSON.parse(data));
  };

  const onJson = (m: Record<string, unknown>) => {
    if (typeof m.event === "string") {
      session.framing = "twilio";
      session.messages.push(m.event);
      if (m.event === "start") streamSid = String(m.streamSid);
      if (m.event === "dtmf") {
        const digit = (m.dtmf as { digit?: unknown } | undefined)?.digit;
        session.keyEvents.push({ key: String(digit), at: performance.now() });
      }
      if (m.event === "media") {
        const bytes = unbase64((m.media as { payload: string }).payload);
        return hear(Array.from(bytes, ulawDecode), 8000);
      }
      return;
    }
    session.messages.push(String(m.type));
    const d = m.data as Record<string, unknown> | undefined;
    switch (m.type) {
      case "client-ready":
        return rtviSend("bot-ready", { version: "2.1.0" }, m.id as string);
      case "client-message":
        if (d?.t === "update_system_prompt") {
          rtviSend("server-response", { t: d.t, d: true }, m.id as string);
        }
        return;
      case "dtmf": {
        // RTVI 2.1 sends `buttons`, older versions one `button` a message.
        const keys = (d?.buttons as unknown[] | undefined) ?? [d?.button];
        for (const k of keys) session.keyEvents.push({ key: String(k), at: performance.now() });
        return;
      }
      case "raw-audio":
        return hear(fromLe16(unbase64(d!.base64Audio as string)), d!.sampleRate as number);
    }
  };
}

// ---- in process --------------------------------------------------------------------

/**
 * The truth agent as a participant on the call's own clock: it hears each caller
 * utterance's audio (as handed over with `speech_start`), and speaks its reply's audio
 * `delay` after the utterance's end of speech.
 */
export class TruthParticipant implements Participant {
  readonly info: ParticipantInfo = { kind: "truth" };
  readonly replies: TruthReplyLog[] = [];
  /** Keys its own detector heard in the caller's tones, at call time. */
  readonly keysHeard: { key: string; at: number }[] = [];
  readonly #o: TruthAgentOptions;
  #line?: CallLine;
  #heard = 0;

  constructor(options: TruthAgentOptions) {
    this.#o = options;
  }

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    const line = this.#line!;
    if (event.type === "call_start") {
      return this.#reply(0, this.#o.greetMs ?? 500, event.at);
    }
    if (event.type === "tone_start") {
      const rate = event.audio.sampleRate;
      for (const k of new TruthDtmfDetector(rate).push(event.audio.samples)) {
        this.keysHeard.push({ key: k.key, at: event.at + (k.at * 1000) / rate });
      }
      return;
    }
    if (event.type !== "speech_start" || !event.audio) return;
    const audio: Pcm16 = event.audio;
    const edges = truthSpeechEdges(audio.samples, audio.sampleRate);
    if (!edges) return;
    const i = ++this.#heard;
    this.#reply(i, this.#o.delays[Math.min(i, this.#o.delays.length) - 1]!, event.at + edges.endMs);
    void line;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #reply(answers: number, delayMs: number, callerEndAt: number): void {
    const line = this.#line!;
    const leadMs = this.#o.leadMs ?? 0;
    const rate = line.audio?.sampleRate ?? 16000;
    const samples = truthReply(rate, leadMs, this.#o.speechMs, answers + 1);
    const firstAt = callerEndAt + delayMs - leadMs;
    this.replies.push({
      answers,
      delayMs,
      callerEndAt,
      callerAudioEndAt: callerEndAt,
      firstFrameAt: firstAt,
      speechAt: firstAt + leadMs,
    });
    line.clock.timer(Math.max(0, firstAt - line.clock.now()), () => {
      line.say(answers === 0 ? "Hello there." : `Reply ${answers}.`, {
        audio: { pcm: { samples, sampleRate: rate, channels: 1 } as Pcm16, startMs: firstAt },
      });
    });
  }
}

/**
 * A caller that says `lines[i]` after the agent's i-th turn (the greeting first), then
 * hangs up. With `bargeInMs`, it says `lines[0]` after the greeting and each later line
 * `bargeInMs` after an agent turn began to play (over it), and hangs up that long into
 * the turn after its last line.
 */
export class TruthCaller implements Participant {
  readonly info: ParticipantInfo = { kind: "truth-caller" };
  readonly #lines: readonly string[];
  readonly #pauseMs: number;
  readonly #bargeInMs: number | undefined;
  #line?: CallLine;
  #turns = 0;
  #starts = 0;

  constructor(lines: readonly string[], pauseMs = 300, bargeInMs?: number) {
    this.#lines = lines;
    this.#pauseMs = pauseMs;
    this.#bargeInMs = bargeInMs;
  }

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    const line = this.#line!;
    if (this.#bargeInMs !== undefined) {
      if (event.type === "speech" && this.#turns === 0) {
        this.#turns++;
        line.clock.timer(this.#pauseMs, () => line.say(this.#lines[0]!));
      } else if (event.type === "speech_start" && this.#turns > 0) {
        // The agent's reply to a caller line is playing: cut in on it.
        const text = this.#lines[++this.#starts];
        line.clock.timer(this.#bargeInMs, () => {
          if (text === undefined) line.hangUp("done");
          else line.say(text);
        });
      }
      return;
    }
    if (event.type !== "speech") return;
    const i = this.#turns++;
    const text = this.#lines[i];
    line.clock.timer(this.#pauseMs, () => {
      if (text === undefined) line.hangUp("done");
      else line.say(text);
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A caller that presses `keys` 300 ms after the agent's greeting and hangs up `hangUpMs` later. */
export class KeyCaller implements Participant {
  readonly info: ParticipantInfo = { kind: "key-caller" };
  #line?: CallLine;
  #done = false;
  /** When it pressed its keys, call time. */
  pressedAt = NaN;

  constructor(readonly keys: string, readonly hangUpMs: number) {}

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    const line = this.#line!;
    if (event.type !== "speech" || this.#done) return;
    this.#done = true;
    line.clock.timer(300, () => {
      this.pressedAt = line.clock.now();
      if (this.keys) line.press(this.keys);
      line.clock.timer(this.hangUpMs, () => line.hangUp("done"));
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
