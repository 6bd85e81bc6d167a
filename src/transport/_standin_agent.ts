/**
 * A stand-in pipecat-style voice bot on loopback, for tests and benchmarks of the
 * audio wire: it answers the RTVI handshake, hears the caller's audio
 * (`AudioRawFrame` in protobuf framing, `raw-audio` in JSON framing), finds the
 * caller's turns with a VAD, and answers each with a generated voiced signal at
 * 24 kHz (`AudioRawFrame` or `bot-tts-audio`) in 20 ms frames paced in real time (as
 * pipecat's output transport sends them), bracketed by `bot-started-speaking` /
 * `bot-stopped-speaking` and with its words as `bot-tts-text`. It greets when the
 * call starts and ends the call (`server-message {type:"end"}`) after its last reply.
 *
 * @module
 */
import { voicedSignal } from "../audio/_test_signals.ts";
import { pcm16, pcm16FromBytes, pcm16ToBytes } from "../audio/pcm.ts";
import type { TtsProvider, TtsResult } from "../speech/speech.ts";
import { SpeechSegmenter, Vad } from "../audio/vad.ts";
import { Pacer, realTimeTicker } from "../audio/pacer.ts";
import { RealClock } from "../clock/clock.ts";
import { type Framing, readFrame, writeFrame } from "../protocol/framing.ts";
import {
  botTtsAudioMessage,
  decodeRawAudio,
  parseMessage,
  rtvi,
  type RtviMessage,
} from "../protocol/messages.ts";
import { decodePipecatFrame, encodeAudioFrame } from "../protocol/protobuf.ts";
import { decodeBase64, encodeBase64 } from "../protocol/audio_payload.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";

/** The rate the stand-in speaks at (what the reference's bots send). */
export const STANDIN_RATE = 24000;

/** What one session of the stand-in saw. */
export interface StandinSession {
  /** `twilio` on the `/twilio` path (a phone agent behind Twilio Media Streams). */
  framing: Framing | "twilio";
  /** Every RTVI message type received, in order. */
  messages: string[];
  /** Caller audio chunks: byte length, rate, channels and arrival (performance.now()). */
  chunks: { bytes: number; sampleRate: number; numChannels: number; at: number }[];
  /** Caller turns the VAD found. */
  callerTurns: number;
  /** Replies sent. */
  replies: number;
}

export interface StandinOptions {
  /** What it says: the greeting first, then one line per caller turn; then it ends the call. */
  lines?: string[];
  /** Milliseconds of audio per word of a line (default 220). */
  msPerWord?: number;
  /** Delay before answering a caller turn (default 150 ms). */
  thinkMs?: number;
  /**
   * Makes a session's VAD (default `Vad.create`); a test holds it back to stand for
   * the first load of libfvad in a fresh process, which takes about 170 ms.
   */
  loadVad?: (sampleRate: number) => Promise<Vad>;
}

/** A running stand-in: its URL and what its sessions saw. */
export interface Standin {
  url: string;
  /** The same bot as a phone agent behind Twilio Media Streams (µ-law 8 kHz, marks). */
  twilioUrl: string;
  sessions: StandinSession[];
  close(): Promise<void>;
}

const DEFAULT_LINES = [
  "Hello, this is the bot. What can I do?",
  "Sure, I can do that for you.",
  "Alright, goodbye.",
];

/**
 * The voiced signal of `ms` at `rate`, seeded by `seed`, made once: generating it
 * costs about 35 ms a second of audio, which would stall every call sharing the
 * process (the benchmark's pacers among them).
 */
export function cachedVoice(rate: number, ms: number, seed: number): Int16Array {
  const key = `${rate}:${ms}:${seed}`;
  let v = voices.get(key);
  if (!v) voices.set(key, v = voicedSignal(rate, ms, seed));
  return v;
}
const voices = new Map<string, Int16Array>();

/** A TTS stand-in for the caller: voiced audio at 16 kHz, 250 ms a word (a VAD hears speech). */
export class VoicedTts implements TtsProvider {
  info = { provider: "fake", sampleRate: 16000 };
  synthesize(r: { text: string }): Promise<TtsResult> {
    const ms = 250 * r.text.split(/\s+/).length;
    return Promise.resolve({
      ok: true,
      audio: pcm16(cachedVoice(16000, ms, r.text.length % 7), 16000),
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Starts a stand-in bot on a free loopback port. */
export function startStandin(options: StandinOptions = {}): Standin {
  // Its voice is made before any call starts.
  const lines = options.lines ?? DEFAULT_LINES;
  lines.forEach((text, i) => {
    const ms = (options.msPerWord ?? 220) * text.split(/\s+/).length;
    cachedVoice(STANDIN_RATE, ms, (i + 1) % 3);
    cachedVoice(TWILIO_RATE, ms, (i + 1) % 3);
  });
  const sessions: StandinSession[] = [];
  const sockets = new Set<WebSocket>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    sockets.add(socket);
    socket.onclose = () => sockets.delete(socket);
    const session: StandinSession = {
      framing: "json",
      messages: [],
      chunks: [],
      callerTurns: 0,
      replies: 0,
    };
    sessions.push(session);
    if (new URL(req.url).pathname === "/twilio") {
      session.framing = "twilio";
      void runTwilioSession(socket, session, options);
    } else void runSession(socket, session, options);
    return response;
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `ws://127.0.0.1:${port}/bot`,
    twilioUrl: `ws://127.0.0.1:${port}/twilio`,
    sessions,
    async close() {
      for (const s of sockets) s.close(1000, "bye");
      await server.shutdown();
    },
  };
}

const defaultVad = (sampleRate: number) => Vad.create({ sampleRate, frameMs: 20 });

async function runSession(
  socket: WebSocket,
  session: StandinSession,
  options: StandinOptions,
): Promise<void> {
  const lines = options.lines ?? DEFAULT_LINES;
  const msPerWord = options.msPerWord ?? 220;
  const thinkMs = options.thinkMs ?? 150;
  // Every handler is in place before the VAD has loaded (which takes a while in a
  // fresh process): the caller's `client-ready` may arrive first. Audio heard before
  // then waits for the VAD.
  const ear: { vad?: Vad } = {};
  const early: Int16Array[] = [];
  const segmenter = new SpeechSegmenter({ frameMs: 20, minSilenceMs: 500 });
  let next = 0;
  let speakingUntil = 0;
  let closed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    timers.add(t);
  };
  const send = (m: RtviMessage) => {
    if (socket.readyState === WebSocket.OPEN) {
      socket.send(writeFrame(m, session.framing === "protobuf" ? "protobuf" : "json"));
    }
  };
  const out = new Pacer({
    clock: new RealClock(),
    sampleRate: STANDIN_RATE,
    chunkMs: 20,
    silenceFill: false,
    onChunk: (chunk) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const audio = { pcm: pcm16ToBytes(chunk.samples), sampleRate: STANDIN_RATE, numChannels: 1 };
      socket.send(
        session.framing === "protobuf"
          ? encodeAudioFrame(audio)
          : writeFrame(botTtsAudioMessage(audio), "json"),
      );
    },
  });
  socket.addEventListener("close", () => {
    closed = true;
    out.stop();
    for (const t of timers) clearTimeout(t);
    ear.vad?.free();
  });
  const speak = () => {
    const text = lines[next++];
    if (text === undefined) return;
    session.replies++;
    const ms = msPerWord * text.split(/\s+/).length;
    const samples = cachedVoice(STANDIN_RATE, ms, next % 3);
    speakingUntil = performance.now() + ms;
    send(rtvi("bot-started-speaking"));
    send(rtvi("bot-tts-text", { text }));
    out.start();
    out.enqueue(samples);
    void out.drained().then(() => {
      out.stop();
      if (closed) return;
      send(rtvi("bot-stopped-speaking"));
      if (next >= lines.length) send(rtvi("server-message", { type: "end", reason: "done" }));
    });
  };
  const heard = (pcm: Uint8Array, sampleRate: number, numChannels: number) => {
    session.chunks.push({ bytes: pcm.length, sampleRate, numChannels, at: performance.now() });
    const samples = pcm16FromBytes(pcm);
    if (!samples.ok || closed) return;
    if (ear.vad === undefined) early.push(samples.samples);
    else listen(ear.vad, samples.samples);
  };
  const listen = (heardBy: Vad, samples: Int16Array) => {
    for (const e of segmenter.push(heardBy.process(samples))) {
      if (e.type !== "end") continue;
      session.callerTurns++;
      // A turn heard while it still speaks is its own echo of nothing: ignore it.
      if (performance.now() < speakingUntil) continue;
      later(thinkMs, speak);
    }
  };
  socket.onmessage = (event) => {
    realTimeTicker.poll();
    const data = event.data as string | ArrayBuffer;
    if (typeof data !== "string") session.framing = "protobuf";
    const frame = readFrame(data);
    if (!frame.ok) return;
    if ("skipped" in frame) {
      const f = decodePipecatFrame(new Uint8Array(data as ArrayBuffer));
      if (f.ok && f.frame.kind === "audio") {
        heard(f.frame.pcm, f.frame.sampleRate, f.frame.numChannels);
      }
      return;
    }
    const parsed = parseMessage(frame.text);
    if (!parsed.ok || !parsed.message) return;
    const msg = parsed.message;
    session.messages.push(msg.type);
    switch (msg.type) {
      case "client-ready":
        return send(rtvi("bot-ready", { version: "2.1.0" }, msg.id));
      case "raw-audio": {
        const a = decodeRawAudio(msg.data);
        if (a.ok) heard(a.value.pcm, a.value.sampleRate, a.value.numChannels);
        return;
      }
      case "client-message": {
        const t = (msg.data as { t?: string; d?: { type?: string } }).t;
        if (t === "update_system_prompt") {
          return send(rtvi("server-response", { t, d: true }, msg.id));
        }
        if (
          t === "call_event" && (msg.data as { d?: { type?: string } }).d?.type === "call_start"
        ) {
          later(200, speak);
        }
        return;
      }
    }
  };
  const loaded = await (options.loadVad ?? defaultVad)(16000);
  if (closed) {
    loaded.free();
    return;
  }
  ear.vad = loaded;
  for (const samples of early.splice(0)) listen(loaded, samples);
}

/** The rate of a Twilio media stream. */
const TWILIO_RATE = 8000;

/**
 * A phone agent behind Twilio Media Streams: hears the caller's µ-law by VAD, greets
 * once the stream starts, answers each caller turn with µ-law frames paced every
 * 20 ms followed by a mark, and hangs up (closes the stream) after its last line.
 * Messages are read with `JSON.parse` alone: hundreds of calls share its process.
 */
function runTwilioSession(socket: WebSocket, session: StandinSession, options: StandinOptions) {
  const lines = options.lines ?? DEFAULT_LINES;
  const msPerWord = options.msPerWord ?? 220;
  const thinkMs = options.thinkMs ?? 150;
  let vad: Vad | undefined;
  const early: Int16Array[] = [];
  const segmenter = new SpeechSegmenter({ frameMs: 20, minSilenceMs: 500 });
  let streamSid = "";
  let next = 0;
  let speakingUntil = 0;
  let closed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!closed) fn();
    }, ms);
    timers.add(t);
  };
  const send = (m: unknown) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(m));
  };
  const out = new Pacer({
    clock: new RealClock(),
    sampleRate: TWILIO_RATE,
    chunkMs: 20,
    silenceFill: false,
    onChunk: (chunk) =>
      send({
        event: "media",
        streamSid,
        media: { payload: encodeBase64(mulawEncode(chunk.samples)) },
      }),
  });
  socket.addEventListener("close", () => {
    closed = true;
    out.stop();
    for (const t of timers) clearTimeout(t);
    vad?.free();
  });
  const speak = () => {
    const text = lines[next++];
    if (text === undefined) return;
    session.replies++;
    const ms = msPerWord * text.split(/\s+/).length;
    speakingUntil = performance.now() + ms;
    out.start();
    out.enqueue(cachedVoice(TWILIO_RATE, ms, next % 3));
    void out.drained().then(() => {
      out.stop();
      if (closed) return;
      send({ event: "mark", streamSid, mark: { name: `reply-${session.replies}` } });
      if (next >= lines.length) socket.close(1000, "done");
    });
  };
  const listen = (heardBy: Vad, samples: Int16Array) => {
    for (const e of segmenter.push(heardBy.process(samples))) {
      if (e.type !== "end") continue;
      session.callerTurns++;
      if (performance.now() < speakingUntil) continue;
      later(thinkMs, speak);
    }
  };
  socket.onmessage = (event) => {
    realTimeTicker.poll();
    if (typeof event.data !== "string" || closed) return;
    let m: { event?: string; streamSid?: string; media?: { payload?: string } };
    try {
      m = JSON.parse(event.data);
    } catch {
      return;
    }
    if (m.event !== "media") session.messages.push(String(m.event));
    if (m.event === "start") {
      streamSid = m.streamSid ?? "";
      later(200, speak);
      return;
    }
    if (m.event !== "media" || typeof m.media?.payload !== "string") return;
    const bytes = decodeBase64(m.media.payload, 1 << 16);
    if (!bytes.ok) return;
    session.chunks.push({
      bytes: bytes.value.length,
      sampleRate: TWILIO_RATE,
      numChannels: 1,
      at: performance.now(),
    });
    const samples = mulawDecode(bytes.value);
    if (vad === undefined) early.push(samples);
    else listen(vad, samples);
  };
  void (options.loadVad ?? defaultVad)(TWILIO_RATE).then((loaded) => {
    if (closed) return loaded.free();
    vad = loaded;
    for (const samples of early.splice(0)) listen(loaded, samples);
  });
}
