/**
 * The Twilio Media Streams mapping (`--framing twilio`), for phone agents: callbench
 * plays Twilio and connects to the agent's stream endpoint as Twilio would after a
 * `<Connect><Stream>`. The call's state machine is `./twilio_call.ts`; this file
 * puts it on the socket and on the call line.
 *
 * - The stream's ids (`streamSid` MZ…, `callSid` CA…, `accountSid` AC…) come from
 *   the trial's seed, so a trial streams the same ids on every run.
 * - In an audio call (`eval --audio`: the line has `audio`) the caller's speech is
 *   the bridge's synthesis (the eval's `--tts` and voice), handed over when the
 *   utterance begins and streamed from then on, so the agent hears it in step with
 *   the call; what the agent says is given back as audio (the record's audio block
 *   and stereo WAV). In a text call the caller's words are synthesized here when they
 *   are said (the `speech.tts` option, else flite's 8 kHz voice `kal`). Either way
 *   the audio is resampled to 8 kHz and streamed in real time.
 * - Twilio carries no text. The agent's turns are found by VAD in the audio as
 *   played; their words come from `speech.stt`, else the call's STT (`--stt openai`),
 *   when there is one. Without one the
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
import { type Pcm16, pcm16 } from "../audio/pcm.ts";
import { callerWords, monoAt, monoAtGivingWay, sayHeardTurn } from "./phone_voice.ts";
import { Vad } from "../audio/vad.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { parseAgentMessage } from "../protocol/twilio.ts";
import type { SttProvider, TtsProvider } from "../speech/speech.ts";
import { connectOptions, remoteInfo, type ResolvedRemote, type WireMapping } from "./mapping.ts";
import { type HeardTurn, TWILIO_RATE, TwilioCall } from "./twilio_call.ts";
import { WsClient } from "./ws_client.ts";

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
  }

  /** How the record describes it: its STT, or that the agent's words are unknown. */
  get info(): ParticipantInfo {
    const stt = this.#stt();
    return remoteInfo(this.#options, {
      stt: stt?.info.provider ?? "none",
      ...(stt ? {} : { words_unknown: true }),
    });
  }

  /** The mapping's STT, else the call's. */
  #stt(): SttProvider | undefined {
    return this.#options.speech?.stt ?? this.#line?.audio?.stt;
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#vad = await Vad.create({ sampleRate: TWILIO_RATE, frameMs: 20 });
    this.#tts = this.#options.speech?.tts;
    // An audio call hands over the caller's audio: no synthesis of our own.
    if (!this.#tts && !line.audio) {
      const { FliteTts } = await import("../speech/tts_flite.ts");
      this.#tts = new FliteTts({ voice: "kal" });
      this.#ownTts = true;
    }
    this.#client = await WsClient.connect({
      ...connectOptions(this.#options, line.clock),
      onFrame: (data) => this.#onFrame(data),
      onGarbage: (what) => this.#garbage(what),
      onClosed: (event) => this.#onClosed(event),
    });
    this.#call = new TwilioCall({
      clock: line.clock,
      stream: { ...twilioSids(setup.seed), customParameters: { scenario: setup.scenario } },
      send: (message) => this.#client?.send(JSON.stringify(message)),
      vad: this.#vad,
      onSpeechStart: (atMs) => {
        line.trace({ type: "agent_speech_start", at: atMs });
        // The caller hears the agent start as it plays (barge-in), not at its turn's end.
        line.startedSpeaking?.();
      },
      onSpeaking: () => line.active?.(),
      onTurn: (turn) => {
        this.#turns = this.#turns.then(() => this.#heard(turn));
      },
      // In-band keys: the agent's tones, decoded from its audio, are its key presses.
      ...(line.audio?.inband
        ? { onDtmf: (key: string) => line.press(key, { inAudio: true }) }
        : {}),
      ...(line.audio?.fill ? { fill: line.audio.fill } : {}),
      onBound: (what) =>
        this.#fail(
          new ParticipantError(
            "protocol_error",
            `the ${this.#options.side} at ${this.#options.shownUrl}: ${this.#options.side} ${what}`,
          ),
        ),
    });
  }

  onEvent(event: CallEvent): void {
    const call = this.#call;
    if (!call) return;
    switch (event.type) {
      case "call_start":
        return call.begin();
      case "speech_start": {
        // The bridge's audio of the utterance, from its first sample.
        const { audio, utterance } = event;
        if (audio) this.#speaking = this.#speaking.then(() => this.#play(audio, utterance));
        return;
      }
      case "speech": {
        if (this.#line?.audio) return; // heard as audio from its start
        const text = event.text;
        this.#speaking = this.#speaking.then(() => this.#say(text));
        return;
      }
      case "dtmf":
        // In-band keys reached the agent as tones in the caller's audio (`tone_start`).
        if (this.#line?.audio?.inband) return;
        return call.press(event.keys);
      case "tone_start":
        this.#speaking = this.#speaking.then(() => this.#play(event.audio));
        return;
      case "hangup":
        this.#ended = true;
        return call.end();
      default:
        return;
    }
  }

  /** What the agent gets of `audio`: 8 kHz µ-law (the tones it is sent are heard so). */
  wireAudio(audio: Pcm16): Pcm16 {
    const samples = monoAt(audio, TWILIO_RATE);
    return pcm16(mulawDecode(mulawEncode(samples)), TWILIO_RATE);
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
    const audio = await callerWords(this.#tts!, text, this.#options.speech?.voice);
    if (audio instanceof ParticipantError) return this.#fail(audio);
    await this.#play(audio);
  }

  /**
   * Streams the caller's audio (any rate) at 8 kHz; resolves once it is sent. `utterance`:
   * the other end's utterance it is (its number), reported sent.
   */
  async #play(audio: Pcm16, utterance?: number): Promise<void> {
    const samples = await monoAtGivingWay(audio, TWILIO_RATE);
    // The record measures the caller's speech on what went out: 8 kHz µ-law.
    const onSent = utterance !== undefined
      ? (at: number, grid: number) =>
        this.#line?.audioSent?.(
          utterance,
          at,
          pcm16(mulawDecode(mulawEncode(samples)), TWILIO_RATE),
          grid,
        )
      : undefined;
    await this.#call?.speak(samples, onSent);
  }

  /** An agent turn heard: its words from STT, else unknown. */
  async #heard(turn: HeardTurn): Promise<void> {
    await sayHeardTurn(this.#line!, this.#stt(), turn, TWILIO_RATE);
  }

  #onFrame(data: string | Uint8Array): void {
    if (this.#failed) return; // what a broken agent still sends is not looked at
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
