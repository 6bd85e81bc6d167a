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
import { interleave, pcm16, pcm16FromBytes, pcm16ToBytes } from "../src/audio/pcm.ts";
import { Resampler } from "../src/audio/resample.ts";
import { writeWavFile } from "../src/audio/wav.ts";
import { parseMessage, rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import {
  decodePipecatFrame,
  encodeAudioFrame,
  encodeMessageFrame,
} from "../src/protocol/protobuf.ts";
import type { Scenario } from "../src/scenario/scenario.ts";

/** The rate the reference bridge assumes bots speak at (frames' own rate ignored). */
const BOT_TTS_RATE = 24_000;
/** The rate it sends to bots. */
const BOT_STT_RATE = 16_000;
/** 16 ms chunks: 256 samples, 512 bytes at 16 kHz. */
const CHUNK_MS = 16;

/** One bot connection, protobuf-framed, as the reference bridge holds it. */
class BotSocket {
  readonly ws: WebSocket;
  readonly received: RtviMessage[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;
  onMessage: (m: RtviMessage) => void = () => {};
  onAudio: (pcm: Uint8Array) => void = () => {};
  #waiters: { pred: (m: RtviMessage) => boolean; resolve: (m: RtviMessage) => void }[] = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    this.closed = new Promise((resolve) => (this.ws.onclose = () => resolve()));
    this.ws.onmessage = (event) => {
      if (typeof event.data === "string") throw new Error("a text frame from a protobuf bot");
      const decoded = decodePipecatFrame(new Uint8Array(event.data as ArrayBuffer));
      if (!decoded.ok) throw new Error(`bad frame from the bot: ${decoded.problem.message}`);
      const frame = decoded.frame;
      if (frame.kind === "audio") return this.onAudio(frame.pcm);
      if (frame.kind !== "message") return;
      const parsed = parseMessage(frame.data);
      if (!parsed.ok || !parsed.message) return;
      const msg = parsed.message;
      this.received.push(msg);
      const hit = this.#waiters.findIndex((w) => w.pred(msg));
      if (hit >= 0) this.#waiters.splice(hit, 1)[0]!.resolve(msg);
      this.onMessage(msg);
    };
  }

  send(msg: RtviMessage): void {
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(encodeMessageFrame(JSON.stringify(msg)));
    }
  }

  sendAudio(samples: Int16Array): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(
      encodeAudioFrame({
        pcm: pcm16ToBytes(samples),
        sampleRate: BOT_STT_RATE,
        numChannels: 1,
      }),
    );
  }

  next(pred: (m: RtviMessage) => boolean, timeoutMs = 15_000): Promise<RtviMessage> {
    const seen = this.received.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no reply within the wait")), timeoutMs);
      this.#waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  async ready(): Promise<void> {
    await this.opened;
    const id = `client_ready_${Date.now() / 1000}`;
    this.send(rtvi("client-ready", {
      version: "1.1.0",
      about: { library: "evaluation-bridge", library_version: "1.0.0" },
    }, id));
    await this.next((m) => m.type === "bot-ready" && m.id === id, 5_000);
  }

  request(t: string, d: unknown, id: string): Promise<RtviMessage> {
    this.send(rtvi("client-message", { t, d }, id));
    return this.next((m) =>
      (m.type === "server-response" || m.type === "error-response") && m.id === id
    );
  }

  async close(): Promise<void> {
    this.ws.close(1000);
    await this.closed;
  }
}

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
        to.sendAudio(chunk.samples);
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
  agentSummary: { actions: unknown[]; db_hash: string | null; db?: unknown };
  userSummary: { actions: unknown[]; db_hash: string | null };
  agentTokenCalls: number;
  turns: AudioTurn[];
  /** Live latency samples, ms (§1.6). */
  latenciesMs: number[];
  /** Audio frames received from each bot. */
  framesFrom: { agent: number; user: number };
  /** The stereo recording written. */
  wavPath: string;
}

const ts = () => Date.now() / 1000;

/** Runs one scenario through the two bots in audio, as the reference runner does. */
export async function runAsReferenceInAudio(
  scenario: Scenario,
  agentUrl: string,
  userUrl: string,
  options: { outDir: string; timeoutMs?: number; kickDelayMs?: number },
): Promise<ReferenceAudioRun> {
  const includeDb = scenario.expect.db_state_assertions.length > 0;
  const sharedState = (side: "agent" | "user") => {
    const source = side === "agent" ? scenario.world.db : scenario.world.user_db;
    const state: Record<string, unknown> = { today: scenario.today };
    if (source && "path" in source) state.db_path = source.path;
    else if (source) state.db = source.inline;
    return state;
  };
  const toolsJson = (names: readonly string[]) =>
    JSON.stringify(Object.fromEntries(names.map((n) => [n, {}])));

  // ---- preparation ------------------------------------------------------------------
  const user = new BotSocket(userUrl);
  const agent = new BotSocket(agentUrl);
  await user.ready();
  await agent.ready();
  user.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  agent.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  for (const [bot, side] of [[user, "user"], [agent, "agent"]] as const) {
    const part = side === "user" ? scenario.user : scenario.agent;
    bot.send(rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: part.prompt || `You are the ${side}.`,
        tools: toolsJson(part.tools),
        add_suffix: false,
        tool_domain: scenario.domain,
      },
    }, `update_prompt_${ts()}`));
  }
  for (const [side, bot] of [["agent", agent], ["user", user]] as const) {
    const reply = await bot.request("apply_initialization", {
      domain: scenario.domain,
      shared_state_init: JSON.stringify(sharedState(side)),
      actions: scenario.initialization_actions.filter((a) => a.side === side),
    }, `apply_init_${side}_${ts()}`);
    const d = (reply.data as { d?: { success?: boolean } }).d;
    if (reply.type !== "server-response" || d?.success !== true) {
      throw new Error(`apply_initialization (${side}) failed: ${JSON.stringify(reply.data)}`);
    }
  }
  await user.close();
  await agent.close();

  // ---- run ----------------------------------------------------------------------------
  const clock = new RealClock();
  const runUser = new BotSocket(userUrl);
  const runAgent = new BotSocket(agentUrl);
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
      if (m.type === "server-message" && role === "agent") {
        const text = typeof data.text === "string" ? data.text.trim() : "";
        if (text.startsWith("<exit>") && text.endsWith("</exit>")) exited();
      }
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
  const kick = setTimeout(() => {
    runAgent.send(rtvi("send-text", {
      content: "Hello",
      options: { run_immediately: true, audio_response: true },
    }, `send_text_${ts()}`));
  }, options.kickDelayMs ?? 1000);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = await Promise.race([
    exit.then(() => "[EXIT]" as const),
    new Promise<"[TIMEOUT]">((
      r,
    ) => (timer = setTimeout(() => r("[TIMEOUT]"), options.timeoutMs ?? 60_000))),
  ]);
  clearTimeout(timer);
  clearTimeout(kick);
  // The exit settle delay: in-flight tool calls commit.
  await new Promise((r) => setTimeout(r, 500));
  running = false;
  toAgent.stop();
  toUser.stop();
  // As the reference after the threads join: segments still open are closed.
  for (const close of finalize) close();

  // ---- end-of-scenario pulls ------------------------------------------------------------
  const pull = async (bot: BotSocket) => {
    await bot.request("get_context_history", {}, `get_context_history_${ts()}`);
    const summary = await bot.request(
      "get_scenario_summary",
      { include_db: includeDb },
      `get_scenario_summary_${ts()}`,
    );
    return (summary.data as { d: ReferenceAudioRun["agentSummary"] }).d;
  };
  const agentSummary = await pull(runAgent);
  const userSummary = await pull(runUser);
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
