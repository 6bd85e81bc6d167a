/**
 * The OpenAI Realtime mapping (`--framing openai-realtime`): callbench is the client
 * of a realtime session and the speech-to-speech model (or an agent behind a
 * Realtime-compatible layer) is the server. The session's state machine is
 * `./openai_realtime_call.ts`; this file puts it on the socket and on the call line.
 *
 * - Connect: the URL as given (`wss://…/v1/realtime?model=M`, or `ws://` for a local
 *   server), the API key in an `Authorization: Bearer` header (never in the URL or
 *   the record). Then `session.created`, `session.update` (the agent's prompt as
 *   `instructions`, its tools as function tools with the JSON Schemas every wire
 *   offers, the audio format both ways, the turn detection), and `session.updated`;
 *   an `error` instead is the refusal, a `protocol_error` with the server's words.
 * - Audio calls only (`eval --audio`): the caller's audio streams in real time; the
 *   model's audio is played out at its own rate and is what the call records, placed
 *   where it played; its words are the model's transcript (no STT: the participant's
 *   settings say `words: "transcript"`).
 * - Tools run in the trial's world, as on every wire; a tool not offered gets
 *   `unknown_tool` as its output. `end_conversation` ends the call once the audio
 *   before it has played.
 * - Token counts of each `response.done` go to the record's usage; `error` and
 *   `rate_limits.updated` events are traced and counted; a socket closed by the server
 *   before the call's end is `agent_disconnected`; any event that is not JSON, of an
 *   unknown type or missing what the call reads is a `protocol_error`, and so is a
 *   server past one of the session's flood bounds (`./openai_realtime_call.ts`).
 *
 * @module
 */
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Participant,
  ParticipantError,
  type ParticipantInfo,
} from "../bridge/call.ts";
import { type Pcm16, pcm16, toMono } from "../audio/pcm.ts";
import { Resampler } from "../audio/resample.ts";
import { findTool } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import {
  parseServerEvent,
  type ReadEvent,
  REALTIME_FORMATS,
  type RealtimeAudioFormat,
  type RealtimeTurnDetection,
  type RealtimeUsage,
  sessionUpdate,
} from "../protocol/openai_realtime.ts";
import {
  connectOptions,
  remoteInfo,
  type ResolvedRemote,
  type WireMapping,
  WORDS_UNKNOWN,
} from "./mapping.ts";
import { RealtimeCall, type RealtimeCallStats, type RealtimeTurn } from "./openai_realtime_call.ts";
import { WsClient } from "./ws_client.ts";

const DEFAULT_REPLY_TIMEOUT_MS = 15_000;
/** The caller's audio is resampled this much at a time. */
const SLICE_MS = 100;

/** `samples` at `to` Hz, 100 ms at a time, the event loop free between slices. */
async function* slices(samples: Int16Array, from: number, to: number): AsyncGenerator<Int16Array> {
  const r = new Resampler(from, to);
  const step = (from * SLICE_MS) / 1000;
  for (let at = 0; at < samples.length; at += step) {
    yield r.process(samples.subarray(at, at + step));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  yield r.flush();
}

/** The realtime mapping (`--framing openai-realtime`). */
export const realtimeMapping: WireMapping = (options) => new RealtimeParticipant(options);

/** Token counts summed over the session's responses, with the audio/text split. */
interface UsageTotals {
  responses: number;
  input_tokens: number;
  output_tokens: number;
  input_audio_tokens: number;
  input_text_tokens: number;
  input_cached_tokens: number;
  output_audio_tokens: number;
  output_text_tokens: number;
}

/** A speech-to-speech model (or agent) behind the OpenAI Realtime API. */
export class RealtimeParticipant implements Participant {
  readonly #options: ResolvedRemote;
  readonly #format: RealtimeAudioFormat;
  readonly #turnDetection: RealtimeTurnDetection;
  #line?: CallLine;
  #client?: WsClient;
  #call?: RealtimeCall;
  /** Tools of this scenario that end the call (`end_call` and `transfer` effects). */
  #ending = new Set<string>(["end_conversation"]);
  /** Caller audio in order. */
  #speaking: Promise<void> = Promise.resolve();
  /** Before `session.updated`: the handshake's waiter. */
  #handshake?: { resolve: (e: ReadEvent) => void; reject: (e: ParticipantError) => void };
  #configured = false;
  #summarized = false;
  #ended = false;
  #closing = false;
  #failed = false;
  readonly #usage: UsageTotals = {
    responses: 0,
    input_tokens: 0,
    output_tokens: 0,
    input_audio_tokens: 0,
    input_text_tokens: 0,
    input_cached_tokens: 0,
    output_audio_tokens: 0,
    output_text_tokens: 0,
  };

  constructor(options: ResolvedRemote) {
    this.#options = options;
    this.#format = options.realtime?.audio ?? "pcm16";
    this.#turnDetection = options.realtime?.turnDetection ?? "server_vad";
  }

  /**
   * How the record describes it: the session's settings (its words are its
   * transcript, no STT), and once the call is over what crossed the session: counters,
   * `error` and rate-limit events, and the token totals with their audio/text split.
   */
  get info(): ParticipantInfo {
    const model = new URL(this.#options.shownUrl).searchParams.get("model");
    return {
      ...remoteInfo(this.#options, {
        audio: this.#format,
        turn_detection: this.#turnDetection,
        ...(this.#options.realtime?.voice ? { voice: this.#options.realtime.voice } : {}),
        words: "transcript",
        stt: "none",
        ...(this.#summarized && this.#call
          ? { session: { ...this.#call.stats, usage: { ...this.#usage } } }
          : {}),
      }),
      ...(model ? { model } : {}),
    };
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    if (!line.audio) {
      throw new ParticipantError(
        "protocol_error",
        `the realtime wire carries audio only: ${this.#who()} needs an audio call`,
      );
    }
    try {
      const domain = await getDomain(setup.domain);
      for (const t of setup.tools) {
        const def = findTool(domain, setup.side, t.name);
        if (def?.effect === "end_call" || def?.effect === "transfer") this.#ending.add(t.name);
      }
    } catch { /* a domain the registry does not know: end_conversation alone ends */ }
    const session = this.#expect();
    this.#client = await WsClient.connect({
      ...connectOptions(this.#options, line.clock),
      ...(this.#options.apiKey
        ? { headers: { Authorization: `Bearer ${this.#options.apiKey}` } }
        : {}),
      onFrame: (data) => this.#onFrame(data),
      onGarbage: (what) => this.#garbage(what),
      onClosed: (event) => this.#onClosed(event),
    });
    this.#call = new RealtimeCall({
      clock: line.clock,
      format: this.#format,
      turnDetection: this.#turnDetection,
      send: (event) => this.#client?.send(JSON.stringify(event)),
      runTool: (name, args) => line.callTool(name, args),
      endsCall: (name) => this.#ending.has(name),
      onTurn: (turn) => this.#heard(turn),
      onSpeechStart: (atMs) => {
        line.trace({ type: "agent_speech_start", at: atMs });
        line.startedSpeaking?.();
      },
      onSpeaking: () => line.active?.(),
      onUsage: (usage) => this.#addUsage(usage),
      trace: (entry) => line.trace(entry),
      fail: (problem) => this.#garbage(problem),
      onBound: (what) =>
        this.#fail(
          new ParticipantError("protocol_error", `${this.#who()}: ${this.#options.side} ${what}`),
        ),
    });
    const timeoutMs = this.#options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    const timedOut = (what: string) =>
      new ParticipantError(
        "agent_timeout",
        `${this.#who()} sent no ${what} within ${timeoutMs} ms`,
      );
    // session.created, then our session.update, then session.updated (or the refusal).
    await this.#await(session, timeoutMs, () => timedOut("session.created"));
    const updated = this.#expect();
    this.#client.send(JSON.stringify(sessionUpdate({
      instructions: setup.prompt,
      tools: setup.tools,
      audio: this.#format,
      turnDetection: this.#turnDetection,
      ...(this.#options.realtime?.voice ? { voice: this.#options.realtime.voice } : {}),
      ...(setup.tools_server ? { toolsServer: setup.tools_server } : {}),
    })));
    const reply = await this.#await(updated, timeoutMs, () => timedOut("session.updated"));
    this.#checkFormat(reply);
  }

  /** The next handshake event (a failure before it is awaited is no unhandled rejection). */
  #expect(): Promise<ReadEvent> {
    const step = new Promise<ReadEvent>((resolve, reject) => {
      this.#handshake = { resolve, reject };
    });
    step.catch(() => {});
    return step;
  }

  /** Waits for a handshake step, at most `timeoutMs` on the line's clock. */
  async #await<T>(
    step: Promise<T>,
    timeoutMs: number,
    timedOut: () => ParticipantError,
  ): Promise<T> {
    let cancel = () => {};
    const timer = new Promise<never>((_, reject) => {
      cancel = this.#line!.clock.timer(timeoutMs, () => reject(timedOut()));
    });
    try {
      return await Promise.race([step, timer]);
    } finally {
      cancel();
    }
  }

  /** A server that took another audio format than asked would be heard at the wrong rate. */
  #checkFormat(event: ReadEvent): void {
    if (event.type !== "session.updated") return;
    const want = REALTIME_FORMATS[this.#format].format;
    for (const dir of ["input", "output"] as const) {
      const got = event.session?.audio?.[dir]?.format as
        | { type?: unknown; rate?: unknown }
        | undefined;
      if (!got) continue;
      const rate = got.rate ?? (want.type === "audio/pcm" ? 24000 : undefined);
      if (got.type !== want.type || (want.type === "audio/pcm" && rate !== 24000)) {
        throw new ParticipantError(
          "protocol_error",
          `${this.#who()} set the ${dir} audio to ${JSON.stringify(got)}, not ${
            JSON.stringify(want)
          } as asked`,
        );
      }
    }
  }

  onEvent(event: CallEvent): void {
    const call = this.#call;
    if (!call) return;
    switch (event.type) {
      case "call_start":
        return call.begin(event.you_speak_first);
      case "speech_start": {
        const { audio, at, utterance } = event;
        if (audio) this.#speaking = this.#speaking.then(() => this.#play(audio, at, utterance));
        return;
      }
      case "hangup":
        this.#ended = true;
        call.end();
        return this.#summarize();
      default:
        return; // keys and beeps have no realtime event; the words went as audio
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#call?.end();
    this.#summarize();
    this.#handshake?.reject(new ParticipantError("agent_disconnected", "closed"));
    await this.#client?.close(1000, "call over");
  }

  /** The session's counters and token totals, traced once when the call is over. */
  #summarize(): void {
    if (this.#summarized || !this.#call) return;
    this.#summarized = true;
    this.#line?.trace(
      {
        type: "realtime_session",
        ...this.#call.stats,
        usage: { ...this.#usage },
      } satisfies Record<string, unknown> & RealtimeCallStats,
    );
  }

  /**
   * Streams the caller's audio (any rate) at the session's rate. It is resampled in
   * 100 ms slices with the event loop free between them, so the first chunk goes out
   * on the utterance's first slot: resampling a whole utterance at once holds the loop
   * for tens of milliseconds, and the model would hear the caller that much late.
   */
  async #play(audio: Pcm16, at: number, utterance?: number): Promise<void> {
    const call = this.#call!;
    const mono = toMono(audio);
    const late = this.#line!.clock.now() - at;
    if (late > 5) this.#line!.trace({ type: "caller_audio_late", ms: Math.round(late) });
    // The record places and measures the utterance where its first sample went out.
    const onSent = utterance === undefined
      ? undefined
      : (atMs: number) => this.#line?.audioSent?.(utterance, atMs);
    if (mono.sampleRate === call.sampleRate) return call.speak(mono.samples, onSent);
    await call.speak(slices(mono.samples, mono.sampleRate, call.sampleRate), onSent);
  }

  /** One response, as heard: its transcript, and the audio placed where it played. */
  #heard(turn: RealtimeTurn): void {
    const line = this.#line!;
    line.trace({
      type: "agent_turn_audio",
      response_id: turn.responseId,
      start_ms: turn.startMs,
      end_ms: turn.startMs + (turn.samples.length * 1000) / turn.sampleRate,
      ...(turn.interrupted ? { interrupted: true } : {}),
    });
    line.say(turn.text === "" ? WORDS_UNKNOWN : turn.text, {
      audio: {
        pcm: pcm16(turn.samples, turn.sampleRate),
        startMs: turn.startMs,
        transcribed: turn.text !== "",
      },
    });
  }

  #addUsage(u: RealtimeUsage): void {
    const t = this.#usage;
    t.responses++;
    t.input_tokens += u.input_tokens ?? 0;
    t.output_tokens += u.output_tokens ?? 0;
    t.input_audio_tokens += u.input_token_details?.audio_tokens ?? 0;
    t.input_text_tokens += u.input_token_details?.text_tokens ?? 0;
    t.input_cached_tokens += u.input_token_details?.cached_tokens ?? 0;
    t.output_audio_tokens += u.output_token_details?.audio_tokens ?? 0;
    t.output_text_tokens += u.output_token_details?.text_tokens ?? 0;
    this.#line?.usage({
      prompt_tokens: u.input_tokens ?? 0,
      completion_tokens: u.output_tokens ?? 0,
    });
  }

  #onFrame(data: string | Uint8Array): void {
    if (typeof data !== "string") {
      return this.#garbage("a binary frame (realtime events are JSON text)");
    }
    const parsed = parseServerEvent(data);
    if (!parsed.ok) return this.#garbage(parsed.problem);
    const event = parsed.event;
    if (!this.#configured) return this.#beforeSession(event as ReadEvent);
    this.#call?.receive(event);
  }

  /** The handshake: session.created, then session.updated or the server's refusal. */
  #beforeSession(event: ReadEvent): void {
    const waiter = this.#handshake;
    if (!waiter) return;
    if (event.type === "session.created" || event.type === "session.updated") {
      // From session.updated on, every event is the session's (even in this same tick).
      this.#handshake = undefined;
      if (event.type === "session.updated") this.#configured = true;
      return waiter.resolve(event);
    }
    if (event.type === "error") {
      this.#handshake = undefined;
      return waiter.reject(
        new ParticipantError(
          "protocol_error",
          `${this.#who()} refused the session: ${event.error.message}${
            event.error.code ? ` (${event.error.code})` : ""
          }`,
        ),
      );
    }
  }

  #onClosed(event: { code: number; reason: string }): void {
    const error = new ParticipantError(
      "agent_disconnected",
      `${this.#who()} closed the connection (code ${event.code}${
        event.reason ? `, ${event.reason}` : ""
      })`,
    );
    this.#handshake?.reject(error);
    this.#handshake = undefined;
    if (this.#closing || this.#ended) return;
    this.#call?.end();
    this.#fail(error);
  }

  #garbage(what: string): void {
    const error = new ParticipantError("protocol_error", `${this.#who()} sent garbage: ${what}`);
    if (this.#handshake) {
      const waiter = this.#handshake;
      this.#handshake = undefined;
      return waiter.reject(error);
    }
    this.#fail(error);
  }

  #fail(error: ParticipantError): void {
    if (this.#failed || this.#closing) return;
    this.#failed = true;
    this.#call?.end();
    this.#summarize();
    this.#line?.fail(error);
  }

  #who(): string {
    return `the ${this.#options.side} at ${this.#options.shownUrl}`;
  }
}
