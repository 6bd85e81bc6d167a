/**
 * Test agents of our own for the behaviour of audio calls on the wire: an RTVI bot on
 * loopback (JSON or pipecat protobuf frames, whichever the client sends), or on the
 * `/twilio` path a phone agent behind Twilio Media Streams (µ-law 8 kHz `media`, a
 * `mark` after each utterance, `clear` when it stops), whose every act is a test's
 * script. It answers the handshake, keeps every message it is sent, hears the caller's
 * audio and finds the caller's turns by energy (a chunk above −45 dBFS is speech, begun
 * at the first sample of sound of the first chunk of sound before it, above −70 dBFS;
 * 300 ms below, or `turnEndMs`, ends the turn, at its last sample of sound; a sample
 * of magnitude 33 or more, or `soundSample`, is sound), and speaks
 * 24 kHz audio (8 kHz on Twilio) in 20 ms frames (or `frameMs`) paced in real time, as
 * pipecat's output transport sends them, its first frame as soon as it is given audio.
 * Built from PROTOCOL.md, the pipecat serializer's format and Twilio's, not from
 * callbench's client. Its sockets live in a Worker of their own (`./_ws_host.ts`), as a
 * real agent's live on a machine of their own: each message is stamped when it came.
 *
 * @module
 */
import { concatSamples, dbfs, pcm16FromBytes, pcm16ToBytes } from "../src/audio/pcm.ts";
import { mulawDecode, mulawEncode } from "../src/audio/mulaw.ts";
import { Pacer } from "../src/audio/pacer.ts";
import { RealClock } from "../src/clock/clock.ts";
import { type Framing, readFrame, writeFrame } from "../src/protocol/framing.ts";
import {
  botTtsAudioMessage,
  decodeRawAudio,
  parseMessage,
  rtvi,
  type RtviMessage,
} from "../src/protocol/messages.ts";
import { decodePipecatFrame, encodeAudioFrame } from "../src/protocol/protobuf.ts";
import { type HostedSocket, hostWebSocketServer } from "./_ws_host.ts";

/** The rate the test agents speak at. */
export const AGENT_RATE = 24000;
/** Caller audio above this level (dBFS, per 16 ms chunk) is speech. */
const SPEECH_DBFS = -45;
/** Caller audio above this level is sound: a turn began at its first chunk of sound. */
const SOUND_DBFS = -70;
/** This long below it ends a caller turn. */
const TURN_END_MS = 300;
/** A sample this loud (about −60 dBFS) is sound: where a turn begins and ends. */
const SOUND_SAMPLE = 33;
/** The rate of a Twilio media stream. */
const TWILIO_RATE = 8000;
/** A caller chunk this much later than its stream's grid starts the stream anew (a break in it). */
const STREAM_BREAK_MS = 200;

/** One call as a test agent sees it, and what it can do on it. */
export interface BehaveSession {
  framing: Framing | "twilio";
  /** Every message received but audio, in order. */
  messages: RtviMessage[];
  /** When each of `messages` arrived (performance.now()). */
  arrivals: number[];
  /**
   * Caller turns heard: when each began (its first sound's arrival) and ended (its last
   * sound, where it is on the caller stream's grid: not later for a chunk read late),
   * performance.now().
   */
  callerTurns: { startAt: number; endAt?: number }[];
  /** The caller's audio as received (16 kHz mono), concatenated. */
  callerAudio(): Int16Array;
  send(message: RtviMessage): void;
  /**
   * Plays `samples` (at {@link AGENT_RATE}, or the agent's `sampleRate`) in real time, 20 ms a frame; resolves when
   * the last frame is sent (or the queue is cleared).
   */
  play(samples: Int16Array): Promise<void>;
  /** Drops what is still queued to play. */
  clear(): void;
  /**
   * Where the audio it played last ended as heard (performance.now(): the last chunk's
   * slot plus its audio, plus how late the play's first chunk left): with a turn's
   * start, the yield it produced.
   */
  audioEndAt(): number;
  /**
   * When the audio it played last began (performance.now(): when its first chunk left,
   * its slot or later if its timer fired late).
   */
  audioStartAt(): number;
  /** When the last sound of the caller heard so far ended (on its stream's grid, performance.now()). */
  callerSoundUntil(): number;
  /** Calls `fn` with each message received but audio, as it arrives. */
  onMessage(fn: (message: RtviMessage) => void): void;
  /**
   * Calls `fn` as each caller turn is heard to start and to end (`at`: its first or last
   * sound, performance.now(); the end is heard `turnEndMs` after it).
   */
  onCallerTurn(fn: (event: { type: "start" | "end"; index: number; at: number }) => void): void;
  /** Resolves at the next caller turn's start / end (with its index). */
  callerStarted(): Promise<number>;
  callerEnded(): Promise<number>;
  /** Resolves when the call's `call_event` `call_start` arrives. */
  started: Promise<void>;
  /** The socket closed. */
  closed: Promise<void>;
  isClosed(): boolean;
}

/** A running test agent. */
export interface BehaveAgent {
  url: string;
  /** The same agent as a phone agent behind Twilio Media Streams. */
  twilioUrl: string;
  sessions: BehaveSession[];
  /** Resolves when every session's script has finished. */
  done(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a test agent on a free loopback port; `script` runs once per call. Its sockets
 * are read in a Worker of their own (`./_ws_host.ts`), which stamps each message as it
 * comes: what it hears is when the caller's audio came, not when this thread, which
 * callbench shares, was free to read it.
 */
export async function startBehaveAgent(
  script: (session: BehaveSession) => Promise<void> | void,
  options: {
    frameMs?: number;
    sampleRate?: number;
    turnEndMs?: number;
    soundSample?: number;
    /**
     * How much later than it came each caller chunk is read, ms (default none): a test's
     * stand-in for this thread busy when the chunk arrived.
     */
    readLag?: (samples: Int16Array) => number;
  } = {},
): Promise<BehaveAgent> {
  const sessions: BehaveSession[] = [];
  const scripts: Promise<void>[] = [];
  const sockets = new Set<HostedSocket>();
  const server = await hostWebSocketServer((socket) => {
    sockets.add(socket);
    const twilio = socket.path === "/twilio";
    const session = openSession(socket, {
      twilio,
      frameMs: options.frameMs ?? 20,
      rate: options.sampleRate ?? (twilio ? TWILIO_RATE : AGENT_RATE),
      turnEndMs: options.turnEndMs ?? TURN_END_MS,
      soundSample: options.soundSample ?? SOUND_SAMPLE,
      readLag: options.readLag,
    });
    sessions.push(session);
    scripts.push(
      session.started.then(() => script(session)).catch((e) => {
        if (!session.isClosed()) throw e;
      }),
    );
  });
  const { port } = server;
  return {
    url: `ws://127.0.0.1:${port}/bot`,
    twilioUrl: `ws://127.0.0.1:${port}/twilio`,
    sessions,
    async done() {
      await Promise.all(scripts);
    },
    async close() {
      const closing = [...sockets].filter((s) => s.readyState !== WebSocket.CLOSED).map((s) =>
        new Promise<void>((r) => {
          const before = s.onclose;
          s.onclose = () => {
            before?.();
            r();
          };
          s.close(1000, "bye");
        })
      );
      await Promise.all(closing);
      await server.shutdown();
    },
  };
}

function openSession(
  socket: HostedSocket,
  o: {
    twilio: boolean;
    frameMs: number;
    rate: number;
    turnEndMs: number;
    soundSample: number;
    readLag?: (samples: Int16Array) => number;
  },
): BehaveSession {
  const { frameMs, rate } = o;
  let framing: Framing | "twilio" = o.twilio ? "twilio" : "json";
  let streamSid = "";
  let marks = 0;
  let closed = false;
  const messages: RtviMessage[] = [];
  const arrivals: number[] = [];
  const callerTurns: { startAt: number; endAt?: number }[] = [];
  const heard: Int16Array[] = [];
  let speaking = false;
  let quietMs = 0;
  /** When the run of sound now arriving began. */
  let soundSince: number | undefined;
  let startWaiters: ((i: number) => void)[] = [];
  let endWaiters: ((i: number) => void)[] = [];
  let playWaiters: (() => void)[] = [];
  let audioEnd = -Infinity;
  let audioStart = -Infinity;
  /** The next chunk with audio begins a play. */
  let playBegins = false;
  /** How late the first chunk of the play now sent left after its slot. */
  let playLag = 0;
  /**
   * Where the last sound of the turn now heard ended in the caller's stream (ms of its
   * audio so far); its time is that on the stream's grid, `zero` plus it.
   */
  let lastSoundPos = -Infinity;
  /** Caller audio heard so far, ms. */
  let streamMs = 0;
  /**
   * When the caller's stream began, by its earliest chunk: the least arrival less the
   * audio before it. A chunk read late (this thread busy) is not heard later for it.
   */
  let zero = Infinity;
  const lastSoundAt = () => zero + lastSoundPos;
  const listeners: ((m: RtviMessage) => void)[] = [];
  const turnListeners: ((e: { type: "start" | "end"; index: number; at: number }) => void)[] = [];
  let resolveStarted!: () => void;
  const started = new Promise<void>((r) => (resolveStarted = r));
  let resolveClosed!: () => void;
  const closedPromise = new Promise<void>((r) => (resolveClosed = r));
  const send = (m: RtviMessage) => {
    // A phone line carries no text: the RTVI notices a script sends are not sent.
    if (framing === "twilio") return;
    if (socket.readyState === WebSocket.OPEN) socket.send(writeFrame(m, framing));
  };
  const sendTwilio = (m: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...m, streamSid }));
  };
  const pacerClock = new RealClock();
  const wallOffset = performance.now() - pacerClock.now();
  const pacer = new Pacer({
    clock: pacerClock,
    sampleRate: rate,
    chunkMs: frameMs,
    silenceFill: false,
    onChunk: (chunk) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      if (chunk.audioSamples > 0) {
        // As its listener hears it: a play begins when its first chunk left (a late
        // timer's first chunk is that late for whoever hears it), and the chunks after it
        // follow on from there, caught up on the grid and played one after the other.
        if (playBegins) {
          playLag = Math.max(0, performance.now() - (wallOffset + chunk.dueAt));
          audioStart = wallOffset + chunk.dueAt + playLag;
        }
        audioEnd = wallOffset + chunk.dueAt + playLag + (chunk.audioSamples * 1000) / rate;
        playBegins = false;
      }
      if (framing === "twilio") {
        return sendTwilio({
          event: "media",
          media: { payload: mulawEncode(chunk.samples).toBase64() },
        });
      }
      const audio = { pcm: pcm16ToBytes(chunk.samples), sampleRate: rate, numChannels: 1 };
      socket.send(
        framing === "protobuf"
          ? encodeAudioFrame(audio)
          : writeFrame(botTtsAudioMessage(audio), "json"),
      );
    },
  });
  const drained = () => {
    const waiters = playWaiters;
    playWaiters = [];
    for (const w of waiters) w();
  };
  const tellTurn = (type: "start" | "end", index: number, at: number) => {
    for (const fn of turnListeners) fn({ type, index, at });
  };
  /** When the message now read arrived (performance.now()). */
  let arrivedAt = 0;
  const onCallerSamples = (samples: Int16Array, sampleRate: number) => {
    heard.push(samples);
    const now = arrivedAt + (o.readLag?.(samples) ?? 0);
    const ms = (samples.length * 1000) / sampleRate;
    // The caller streams without a break (silence between its words); a chunk far later
    // than the grid is a new stream after a break, not a late read.
    const offset = now - streamMs;
    if (offset < zero || offset > zero + STREAM_BREAK_MS) zero = offset;
    const pos = streamMs;
    streamMs += ms;
    const level = dbfs(samples);
    if (level > SOUND_DBFS) {
      // At its first sample of sound: the chunk went out (and came) as its audio began.
      let first = 0;
      while (first < samples.length && Math.abs(samples[first]!) < o.soundSample) first++;
      soundSince ??= now + (first * 1000) / sampleRate;
      let last = samples.length;
      while (last > 0 && Math.abs(samples[last - 1]!) < o.soundSample) last--;
      lastSoundPos = pos + (last * 1000) / sampleRate;
    } else soundSince = undefined;
    if (level > SPEECH_DBFS) {
      quietMs = 0;
      if (!speaking) {
        speaking = true;
        callerTurns.push({ startAt: soundSince! });
        const waiters = startWaiters;
        startWaiters = [];
        for (const w of waiters) w(callerTurns.length - 1);
        tellTurn("start", callerTurns.length - 1, soundSince!);
      }
      return;
    }
    if (!speaking) return;
    quietMs += ms;
    if (quietMs < o.turnEndMs) return;
    speaking = false;
    const turn = callerTurns[callerTurns.length - 1]!;
    // The turn ended at its last sample of sound, on the stream's grid (the caller's
    // turn ends where its last sample is on its pacer's grid, however late it was read).
    turn.endAt = lastSoundAt();
    const waiters = endWaiters;
    endWaiters = [];
    for (const w of waiters) w(callerTurns.length - 1);
    tellTurn("end", callerTurns.length - 1, turn.endAt);
  };
  const onCallerAudio = (pcm: Uint8Array) => {
    const decoded = pcm16FromBytes(pcm);
    if (decoded.ok) onCallerSamples(decoded.samples, 16000);
  };
  const onTwilio = (text: string) => {
    let m: { event?: string; streamSid?: string; media?: { payload?: string } };
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if (m.event === "media" && typeof m.media?.payload === "string") {
      return onCallerSamples(mulawDecode(Uint8Array.fromBase64(m.media.payload)), TWILIO_RATE);
    }
    // Its messages but audio, as RTVI ones: `{type: event, data}`.
    const msg = { label: "twilio", type: String(m.event), data: m } as unknown as RtviMessage;
    messages.push(msg);
    arrivals.push(arrivedAt);
    for (const fn of listeners) fn(msg);
    if (m.event === "start") {
      streamSid = m.streamSid ?? "";
      resolveStarted();
    }
  };
  socket.onclose = () => {
    closed = true;
    pacer.stop();
    drained();
    resolveStarted();
    resolveClosed();
  };
  socket.onmessage = ({ data, at }) => {
    arrivedAt = at;
    if (framing === "twilio") return typeof data === "string" ? onTwilio(data) : undefined;
    if (typeof data !== "string") framing = "protobuf";
    const frame = readFrame(data);
    if (!frame.ok) return;
    if ("skipped" in frame) {
      const f = decodePipecatFrame(new Uint8Array(data as ArrayBuffer));
      if (f.ok && f.frame.kind === "audio") onCallerAudio(f.frame.pcm);
      return;
    }
    const parsed = parseMessage(frame.text);
    if (!parsed.ok || !parsed.message) return;
    const msg = parsed.message;
    if (msg.type === "raw-audio") {
      const a = decodeRawAudio(msg.data);
      if (a.ok) onCallerAudio(a.value.pcm);
      return;
    }
    messages.push(msg);
    arrivals.push(arrivedAt);
    for (const fn of listeners) fn(msg);
    if (msg.type === "client-ready") return send(rtvi("bot-ready", { version: "2.1.0" }, msg.id));
    if (msg.type !== "client-message") return;
    const { t, d } = msg.data as { t?: string; d?: { type?: string } };
    if (t === "update_system_prompt") return send(rtvi("server-response", { t, d: true }, msg.id));
    if (t === "call_event" && d?.type === "call_start") resolveStarted();
  };
  return {
    get framing() {
      return framing;
    },
    messages,
    arrivals,
    callerTurns,
    callerAudio: () => concatSamples(heard),
    send,
    play(samples) {
      if (closed) return Promise.resolve();
      // A bot that falls silent sends its next audio at once, not on the old grid's next
      // slot: its first chunk goes out as the grid starts, now. Audio given while its last
      // chunk still plays follows it on the same grid.
      if (pacer.queuedSamples === 0) {
        if (performance.now() >= audioEnd) pacer.stop();
        playBegins = true;
      }
      pacer.enqueue(samples);
      pacer.start();
      // On a phone line its mark comes back once this audio has played.
      if (framing === "twilio") sendTwilio({ event: "mark", mark: { name: `play-${++marks}` } });
      const done = new Promise<void>((r) => playWaiters.push(r));
      void pacer.drained().then(drained);
      return done;
    },
    clear() {
      pacer.clear();
      if (framing === "twilio") sendTwilio({ event: "clear" });
      drained();
    },
    audioEndAt: () => audioEnd,
    audioStartAt: () => audioStart,
    callerSoundUntil: lastSoundAt,
    onMessage: (fn) => void listeners.push(fn),
    onCallerTurn: (fn) => void turnListeners.push(fn),
    callerStarted: () => new Promise((r) => startWaiters.push(r)),
    callerEnded: () => new Promise((r) => endWaiters.push(r)),
    started,
    closed: closedPromise,
    isClosed: () => closed,
  };
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The keypad: rows 697-941 Hz, columns 1209-1633 Hz (ITU-T Q.23). */
const KEYPAD = ["123A", "456B", "789C", "*0#D"];
const ROW_HZ = [697, 770, 852, 941];
const COL_HZ = [1209, 1336, 1477, 1633];

/**
 * Key tones as a phone sends them: each key 100 ms of its row and column sines, 100 ms
 * apart, the row tone `twistDb` louder than the column's (negative: softer), and white
 * noise at `snrDb` below the tones' power when given.
 */
export function keyTones(
  keys: string,
  rate: number,
  options: { twistDb?: number; snrDb?: number; seed?: number } = {},
): Int16Array {
  const tone = Math.round(rate * 0.1);
  const out = new Float64Array(keys.length * tone * 2);
  const col = 6000;
  const row = col * 10 ** ((options.twistDb ?? 0) / 20);
  [...keys].forEach((key, k) => {
    const r = KEYPAD.findIndex((line) => line.includes(key));
    const c = KEYPAD[r]!.indexOf(key);
    for (let i = 0; i < tone; i++) {
      const t = i / rate;
      out[k * tone * 2 + i] = row * Math.sin(2 * Math.PI * ROW_HZ[r]! * t) +
        col * Math.sin(2 * Math.PI * COL_HZ[c]! * t);
    }
  });
  if (options.snrDb !== undefined) {
    // The tones' mean power while on: (row² + col²) / 2.
    const noiseRms = Math.sqrt((row * row + col * col) / 2 / 10 ** (options.snrDb / 10));
    let seed = options.seed ?? 1;
    const uniform = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return (seed + 0.5) / 2 ** 32;
    };
    for (let i = 0; i < out.length; i++) {
      // Gaussian (Box-Muller).
      const g = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
      out[i]! += noiseRms * g;
    }
  }
  return Int16Array.from(out, (x) => Math.max(-32768, Math.min(32767, Math.round(x))));
}

/**
 * A Twilio Media Streams phone agent that, once the stream starts, sends `audio`
 * (8 kHz PCM16) as µ-law `media` in 20 ms payloads, then hangs up (closes the stream)
 * `hangUpAfterMs` later.
 */
export function startTwilioAgent(audio: Int16Array, hangUpAfterMs: number) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = (e) => {
      const m = JSON.parse(e.data as string) as { event: string; start?: { streamSid: string } };
      if (m.event !== "start") return;
      const streamSid = m.start!.streamSid;
      const mulaw = mulawEncode(audio);
      for (let at = 0; at < mulaw.length; at += 160) {
        socket.send(JSON.stringify({
          event: "media",
          streamSid,
          media: { payload: mulaw.subarray(at, at + 160).toBase64() },
        }));
      }
      setTimeout(() => socket.close(1000, "bye"), hangUpAfterMs);
    };
    return response;
  });
  const { port } = server.addr as Deno.NetAddr;
  return { url: `ws://127.0.0.1:${port}/stream`, stop: () => server.shutdown() };
}
