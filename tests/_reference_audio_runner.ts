/**
 * Test helper: drives two `serve --audio` sessions (agent bot and user bot) as the
 * reference harness's runner and bridge do, in audio (reference-harness.md §1.2,
 * §1.4-§1.6). Every frame is a binary pipecat protobuf `Frame`. Preparation: a
 * configuration connection per bot (`client-ready`, `reset`, `update_system_prompt`,
 * `apply_initialization`), closed. Run: a fresh connection per bot, the `send-text`
 * "Hello" kick to the agent after `kickDelayMs`, and one audio stream per direction:
 * the source bot's audio, assumed 24 kHz whatever its frames say, resampled to
 * 16 kHz and sent to the other bot as a continuous real-time stream of 512-byte
 * chunks (16 ms), silence when the source says nothing. Turns come from
 * `bot-started-speaking` / `bot-tts-text` / `bot-stopped-speaking`; a latency sample is
 * the first agent audio frame after the user bot stopped speaking. On the agent's
 * `<exit>`: the 0.5 s settle, then `get_context_history` and `get_scenario_summary` on
 * each run connection, and the chunks sent written as a stereo WAV (left user→agent,
 * right agent→user, 16 kHz) like `conversation_log.wav`.
 *
 * @module
 */
import { RealClock } from "../src/clock/clock.ts";
import { Pacer } from "../src/audio/pacer.ts";
import { interleave, pcm16, pcm16FromBytes } from "../src/audio/pcm.ts";
import { Resampler } from "../src/audio/resample.ts";
import { writeWavFile } from "../src/audio/wav.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import {
  BotSocket,
  isExit,
  kick,
  prepareAsReference,
  pullAsReference,
  type ReferenceRun,
  untilExit,
} from "./_reference_runner.ts";

/** The rate the reference bridge assumes bots speak at (frames' own rate ignored). */
const BOT_TTS_RATE = 24_000;
/** The rate it sends to bots. */
const BOT_STT_RATE = 16_000;
/** 16 ms chunks: 256 samples, 512 bytes at 16 kHz. */
const CHUNK_MS = 16;

/**
 * One direction of the bridge: bytes from the source bot, resampled 24k → 16k, sent
 * to the destination in 16 ms chunks on an accumulating clock, silence when empty;
 * every chunk sent is kept for the recording.
 */
class AudioStream {
  readonly sent: Int16Array[] = [];
  readonly #resampler = new Resampler(BOT_TTS_RATE, BOT_STT_RATE);
  readonly #pacer: Pacer;

  constructor(clock: RealClock, to: BotSocket) {
    this.#pacer = new Pacer({
      clock,
      sampleRate: BOT_STT_RATE,
      chunkMs: CHUNK_MS,
      onChunk: (chunk) => {
        this.sent.push(chunk.samples);
        to.sendAudio(chunk.samples, BOT_STT_RATE);
      },
    });
  }

  start(): void {
    this.#pacer.start();
  }

  /** The source bot's audio, whatever rate its frame claims (the reference ignores it). */
  push(pcm: Uint8Array): void {
    const decoded = pcm16FromBytes(pcm);
    if (!decoded.ok) throw new Error(decoded.message);
    this.#pacer.enqueue(this.#resampler.process(decoded.samples));
  }

  stop(): void {
    this.#pacer.stop();
  }

  recording(): Int16Array {
    const out = new Int16Array(this.sent.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of this.sent) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** One closed speaker segment, as the reference bridge records turns. */
export interface AudioTurn {
  role: "agent" | "user";
  text: string;
  /** Seconds since the run threads started. */
  start: number;
  end: number;
}

/** What the reference runner keeps from one scenario in audio. */
export interface ReferenceAudioRun {
  stop: "[EXIT]" | "[TIMEOUT]";
  agentSummary: ReferenceRun["agentSummary"];
  userSummary: ReferenceRun["userSummary"];
  agentTokenCalls: number;
  turns: AudioTurn[];
  /** Live latency samples, ms (§1.6). */
  latenciesMs: number[];
  /** Audio frames received from each bot. */
  framesFrom: { agent: number; user: number };
  /** The stereo recording written. */
  wavPath: string;
}

/** Runs one scenario through the two bots in audio, as the reference runner does. */
export async function runAsReferenceInAudio(
  scenario: Scenario,
  agentUrl: string,
  userUrl: string,
  options: { outDir: string; timeoutMs?: number; kickDelayMs?: number },
): Promise<ReferenceAudioRun> {
  const includeDb = scenario.expect.db_state_assertions.length > 0;
  await prepareAsReference(scenario, agentUrl, userUrl, "protobuf");

  // ---- run ----------------------------------------------------------------------------
  const clock = new RealClock();
  const runUser = new BotSocket(userUrl, "protobuf");
  const runAgent = new BotSocket(agentUrl, "protobuf");
  await runUser.ready();
  await runAgent.ready();
  const t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  const toAgent = new AudioStream(clock, runAgent);
  const toUser = new AudioStream(clock, runUser);
  const turns: AudioTurn[] = [];
  const latenciesMs: number[] = [];
  const framesFrom = { agent: 0, user: 0 };
  let agentTokenCalls = 0;
  let userStoppedAt: number | undefined;
  let exited!: () => void;
  const exit = new Promise<void>((resolve) => (exited = resolve));
  let running = true;

  const monitor = (bot: BotSocket, role: "agent" | "user", out: AudioStream): () => void => {
    let open: { text: string; start: number } | undefined;
    const close = () => {
      if (!open) return;
      turns.push({ role, text: open.text || "[INTERRUPTED]", start: open.start, end: now() });
      open = undefined;
    };
    bot.onAudio = (pcm) => {
      if (!running) return;
      framesFrom[role]++;
      if (role === "agent" && userStoppedAt !== undefined) {
        latenciesMs.push((now() - userStoppedAt) * 1000);
        userStoppedAt = undefined;
      }
      out.push(pcm);
    };
    bot.onMessage = (m) => {
      if (!running) return;
      const data = (m.data ?? {}) as Record<string, unknown>;
      if (m.type === "metrics" && role === "agent" && Array.isArray(data.tokens)) {
        agentTokenCalls += data.tokens.length;
      }
      if (m.type === "server-message" && role === "agent" && isExit(data)) exited();
      if (m.type === "bot-started-speaking") {
        close();
        open = { text: "", start: now() };
      }
      if (m.type === "bot-tts-text" && open) {
        open.text += (open.text ? " " : "") + String(data.text ?? "");
      }
      if (m.type === "bot-stopped-speaking") {
        close();
        if (role === "user") userStoppedAt = now();
      }
    };
    return close;
  };
  const finalize = [monitor(runAgent, "agent", toUser), monitor(runUser, "user", toAgent)];
  toAgent.start();
  toUser.start();
  const kickTimer = setTimeout(() => kick(runAgent), options.kickDelayMs ?? 1000);
  const stop = await untilExit(exit, options.timeoutMs ?? 60_000, 500);
  clearTimeout(kickTimer);
  running = false;
  toAgent.stop();
  toUser.stop();
  // As the reference after the threads join: segments still open are closed.
  for (const close of finalize) close();

  // ---- end-of-scenario pulls ------------------------------------------------------------
  const agentSummary = (await pullAsReference(runAgent, includeDb)).summary;
  const userSummary = (await pullAsReference(runUser, includeDb)).summary;
  await runAgent.close();
  await runUser.close();

  const wavPath = `${options.outDir}/conversation_log.wav`;
  const written = await writeWavFile(
    wavPath,
    pcm16(interleave(toAgent.recording(), toUser.recording()), BOT_STT_RATE, 2),
  );
  if (!written.ok) throw new Error(written.message);
  return {
    stop,
    agentSummary,
    userSummary,
    agentTokenCalls,
    turns,
    latenciesMs,
    framesFrom,
    wavPath,
  };
}
