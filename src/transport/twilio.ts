/**
 * The Twilio Media Streams mapping (`--framing twilio`), for phone agents: callbench
 * plays Twilio and connects to the agent's stream endpoint as Twilio would after a
 * `<Connect><Stream>`. The call's state machine is `./twilio_call.ts`; this file
 * puts it on the socket and on the call line.
 *
 * - The stream's ids (`streamSid` MZ…, `callSid` CA…, `accountSid` AC…) come from
 *   the trial's seed, so a trial streams the same ids on every run.
 * - The caller's speech is synthesized (the `speech.tts` option, else flite's 8 kHz
 *   voice `kal`), resampled to 8 kHz when needed, and streamed in real time.
 * - Twilio carries no text. The agent's turns are found by VAD in the audio as
 *   played; their words come from `speech.stt` when one is given. Without one the
 *   turn's text is {@link WORDS_UNKNOWN} and the participant's settings say
 *   `words_unknown: true`, so scoring that reads the words is not applicable.
 * - Twilio carries no tool calls either: a phone agent runs its own tools.
 * - The agent ends the call by closing the stream; the caller's hangup sends `stop`.
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
import { pcm16 } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import { Vad } from "../audio/vad.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { parseAgentMessage } from "../protocol/twilio.ts";
import type { TtsProvider } from "../speech/speech.ts";
import { remoteInfo, type ResolvedRemote, type WireMapping } from "./mapping.ts";
import { type HeardTurn, TWILIO_RATE, TwilioCall } from "./twilio_call.ts";
import { WsClient } from "./ws_client.ts";

/** The text of an agent turn whose words are unknown (no STT configured, or it failed). */
export const WORDS_UNKNOWN = "[words unknown]";

/** The Twilio mapping (`--framing twilio`). */
export const twilioMapping: WireMapping = (options) => new TwilioParticipant(options);

/** The stream's ids, from the trial's seed. */
export function twilioSids(
  seed: string,
): { streamSid: string; callSid: string; accountSid: string } {
  const id = (prefix: string) =>
    prefix + sha256Hex(`callbench-twilio:${prefix}:${seed}`).slice(0, 32);
  return { streamSid: id("MZ"), callSid: id("CA"), accountSid: id("AC") };
}

/** A phone agent behind a Twilio Media Streams endpoint. */
export class TwilioParticipant implements Participant {
  readonly info: ParticipantInfo;
  readonly #options: ResolvedRemote;
  #line?: CallLine;
  #client?: WsClient;
  #call?: TwilioCall;
  #vad?: Vad;
  #tts?: TtsProvider;
  #ownTts = false;
  /** Caller speech in order: synthesis may take longer than the next utterance's. */
  #speaking: Promise<void> = Promise.resolve();
  /** Agent turns in order (transcription may take a while). */
  #turns: Promise<void> = Promise.resolve();
  #ended = false;
  #closing = false;
  #failed = false;

  constructor(options: ResolvedRemote) {
    this.#options = options;
    const stt = options.speech?.stt;
    this.info = remoteInfo(options, {
      stt: stt?.info.provider ?? "none",
      ...(stt ? {} : { words_unknown: true }),
    });
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#vad = await Vad.create({ sampleRate: TWILIO_RATE, frameMs: 20 });
    this.#tts = this.#options.speech?.tts;
    if (!this.#tts) {
      const { FliteTts } = await import("../speech/tts_flite.ts");
      this.#tts = new FliteTts({ voice: "kal" });
      this.#ownTts = true;
    }
    this.#client = await WsClient.connect({
      url: this.#options.connectUrl,
      shownUrl: this.#options.shownUrl,
      side: this.#options.side,
      clock: line.clock,
      connectAttempts: this.#options.connectAttempts,
      retryDelayMs: this.#options.retryDelayMs,
      connectTimeoutMs: this.#options.connectTimeoutMs,
      maxFrameBytes: this.#options.maxFrameBytes,
      connect: this.#options.connect,
      onFrame: (data) => this.#onFrame(data),
      onGarbage: (what) => this.#garbage(what),
      onClosed: (event) => this.#onClosed(event),
    });
    this.#call = new TwilioCall({
      clock: line.clock,
      stream: { ...twilioSids(setup.seed), customParameters: { scenario: setup.scenario } },
      send: (message) => this.#client?.send(JSON.stringify(message)),
      vad: this.#vad,
      onSpeechStart: (atMs) => line.trace({ type: "agent_speech_start", at: atMs }),
      onTurn: (turn) => {
        this.#turns = this.#turns.then(() => this.#heard(turn));
      },
    });
  }

  onEvent(event: CallEvent): void {
    const call = this.#call;
    if (!call) return;
    switch (event.type) {
      case "call_start":
        return call.begin();
      case "speech": {
        const text = event.text;
        this.#speaking = this.#speaking.then(() => this.#say(text));
        return;
      }
      case "dtmf":
        return call.press(event.keys);
      case "hangup":
        this.#ended = true;
        return call.end();
      default:
        return;
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#call?.end();
    if (this.#call) this.#line?.trace({ type: "twilio_stream", ...this.#call.stats });
    await this.#client?.close(1000, "call over");
    this.#vad?.free();
    if (this.#ownTts) await this.#tts?.close();
  }

  /** Synthesizes the caller's words and streams them. */
  async #say(text: string): Promise<void> {
    const result = await this.#tts!.synthesize({
      text,
      ...(this.#options.speech?.voice ? { voice: this.#options.speech.voice } : {}),
    });
    if (!result.ok) {
      return this.#fail(
        new ParticipantError("user_error", `${result.error.provider} TTS: ${result.error.message}`),
      );
    }
    const audio = result.audio;
    const mono = audio.channels === 1 ? audio.samples : audio.samples.filter((_, i) => i % 2 === 0);
    const samples = audio.sampleRate === TWILIO_RATE
      ? mono
      : resample(mono, audio.sampleRate, TWILIO_RATE);
    await this.#call?.speak(samples);
  }

  /** An agent turn heard: its words from STT, else unknown. */
  async #heard(turn: HeardTurn): Promise<void> {
    const line = this.#line!;
    const stt = this.#options.speech?.stt;
    let text = WORDS_UNKNOWN;
    if (stt) {
      const result = await stt.transcribe({ audio: pcm16(turn.samples, TWILIO_RATE) });
      if (result.ok && result.text.trim() !== "") text = result.text.trim();
      else if (!result.ok) line.trace({ type: "stt_error", ...result.error });
    }
    line.trace({ type: "agent_turn_audio", start_ms: turn.startMs, end_ms: turn.endMs });
    line.say(text);
  }

  #onFrame(data: string | ArrayBuffer): void {
    if (typeof data !== "string") return this.#garbage("a binary frame (Twilio sends JSON text)");
    const parsed = parseAgentMessage(data, this.#call?.stream.init.streamSid);
    if (!parsed.ok) return this.#garbage(`${parsed.problem.code}: ${parsed.problem.message}`);
    this.#call?.receive(parsed.value);
  }

  /** The agent closed the stream: for a phone agent, that is hanging up. */
  #onClosed(event: { code: number; reason: string }): void {
    if (this.#closing || this.#ended) return;
    this.#ended = true;
    this.#call?.end();
    const reason = `the agent closed the stream (code ${event.code}${
      event.reason ? `, ${event.reason}` : ""
    })`;
    // Its last turn is said first.
    void this.#turns.then(() => this.#line?.hangUp(reason, { agentEnd: true }));
  }

  #garbage(what: string): void {
    this.#fail(
      new ParticipantError(
        "protocol_error",
        `the ${this.#options.side} at ${this.#options.shownUrl} sent garbage: ${what}`,
      ),
    );
  }

  #fail(error: ParticipantError): void {
    if (this.#failed || this.#closing) return;
    this.#failed = true;
    this.#line?.fail(error);
  }
}
