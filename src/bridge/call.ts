/**
 * The contract between the bridge and the two ends of a call. A participant is given
 * a `CallLine` to act on the call (speak, press keys, call tools, hang up) and hears
 * the other end through `onEvent`. Time is the line's `clock`: simulated for
 * deterministic participants, real for LLM and remote ones.
 *
 * @module
 */
import type { Side } from "../domains/domain.ts";
import type { CallTime, Clock } from "../clock/clock.ts";
import type { SaidUtterance, Voice } from "../speech/utterance.ts";
import type { Pcm16 } from "../audio/pcm.ts";
import type { BehaviourKind } from "../speech/behaviour.ts";
import type { SttProvider } from "../speech/speech.ts";

export type { SaidUtterance, Voice } from "../speech/utterance.ts";

export type { CallTime, Clock } from "../clock/clock.ts";

/** What one end perceives of the other, and of the call. */
export type CallEvent =
  /** The call is connected; `you_speak_first` tells who opens. */
  | { type: "call_start"; at: CallTime; you_speak_first: boolean }
  /**
   * The other end began an utterance (for barge-in). In audio calls `audio` is the
   * whole utterance as it will sound (a participant that carries audio streams it
   * from now on, in real time; it is cut short by a later `speech` with
   * `interrupted`). Never serialise it as JSON. `utterance` numbers this utterance on
   * the call (from 1, one number for each said, however alike their audio): the
   * participant names it in `audioSent`.
   */
  | { type: "speech_start"; at: CallTime; voice?: Voice; audio?: Pcm16; utterance?: number }
  /**
   * A whole utterance of the other end, delivered when it ends. `kick`: not the
   * caller's words but a runner's one-time kick (the reference's `"Hello"`) that
   * starts a bot which waits to be spoken to.
   */
  | {
    type: "speech";
    at: CallTime;
    text: string;
    voice?: Voice;
    interrupted?: boolean;
    kick?: boolean;
  }
  /** Keys the other end pressed. */
  | { type: "dtmf"; at: CallTime; keys: string }
  /**
   * Audio calls with in-band keys: the other end's key (or beep) tones begin on the
   * line now. A participant that carries audio plays `audio` on its wire, so its far
   * end hears the tones themselves; the keys follow as `dtmf` once the detector heard
   * them (for participants that do not hear audio).
   */
  | { type: "tone_start"; at: CallTime; audio: Pcm16 }
  /** A voicemail beep. */
  | { type: "beep"; at: CallTime }
  /** The call is over; no more actions are taken. */
  | { type: "hangup"; at: CallTime; by: Side | "harness"; reason: string };

/** A tool the participant may call, as an LLM sees it. */
export interface ToolSpec {
  /** The tool's name, as the LLM calls it. */
  name: string;
  /** What the tool does, for the LLM. */
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** What the bridge tells a participant before the call. */
export interface CallSetup {
  /** Which end of the call this participant is. */
  side: Side;
  /** The scenario's name (an agent learns no more of the scenario than its name). */
  scenario: string;
  /** The scenario's domain name (`getDomain` looks it up). */
  domain: string;
  /** System prompt for this side. */
  prompt: string;
  /** The tools this side may call; empty when it calls none. */
  tools: ToolSpec[];
  /** Free data the agent is given (flows: `userdata`). */
  userdata?: Record<string, unknown>;
  /** Hex seed of the trial. */
  seed: string;
  /**
   * The scenario's fingerprint (src/scenario/identity.ts): a served participant that
   * looks the scenario up by name in its own data root refuses a different one.
   */
  scenario_sha256?: string;
  /**
   * The scenario's culture, where its suite has several (EVA-Bench's release): a
   * served participant loads the scenario in that language.
   */
  language?: string;
  /** This run's data root, for messages on this side (never sent to a participant). */
  data_root?: string;
  /**
   * `eval --agent-world self`: the agent owns its world, as the reference's bots do,
   * and is configured the way the reference runner configures them.
   */
  agent_world?: SelfWorldSetup;
  /**
   * `eval --tools-server`: this call's MCP endpoint for the agent's tools (an agent
   * that calls them from its own backend); `url` holds the token in its path, which
   * also works as `Authorization: Bearer`.
   */
  tools_server?: { url: string; token: string };
}

/** What a reference-style bot that owns its world is given before the call. */
export interface SelfWorldSetup {
  /** The reference's tools object, `{ClassName: constructor kwargs}` (sent as JSON text). */
  tools: Record<string, Record<string, unknown>>;
  /** `apply_initialization`'s `shared_state_init`: `db_path` under the shared data root. */
  shared_state_init: Record<string, unknown>;
  /** The scenario's agent-side initialization actions. */
  actions: { side: Side; func_name: string; arguments: unknown }[];
  /** Telecom: the delta of the first cross-side sync, sent as `apply_sync_delta`. */
  sync_delta?: Record<string, unknown>;
  /** `get_scenario_summary`'s `include_db` (the scenario has state assertions). */
  include_db: boolean;
}

/** What a bot that owns its world reports at the end (`get_scenario_summary`). */
export interface SelfWorldReport {
  /** The bot's own hash of its final DB: its claim, not checked by the harness. */
  db_hash: string | null;
  /** The bot's final DB, when `include_db` was asked for. */
  db?: Record<string, unknown> | null;
  /** The bot's own log of the actions it took on its world, in order. */
  actions: Record<string, unknown>[];
  /** `get_context_history`'s context, when the bot gave one. */
  context?: unknown;
}

/** The harness's answer to `CallLine.callTool`. */
export interface ToolCallReply {
  /** Whether the tool ran without error. */
  ok: boolean;
  /** What the participant should see (falsy results already wrapped). */
  result: unknown;
}

/** LLM token counts, as the OpenAI API reports them. */
export interface Usage {
  /** Tokens in the prompt. */
  prompt_tokens: number;
  /** Tokens in the completion. */
  completion_tokens: number;
}

/**
 * The audio contract of an audio call (`eval --audio`), for participants that carry
 * audio on their wire (remote ones): the other end's audio comes with each
 * `speech_start`, and what they hear of their own peer goes back through `say`'s
 * `audio` option.
 */
export interface LineAudio {
  /** The line's rate (Hz): audio given to `say` is best at this rate (any rate is taken). */
  readonly sampleRate: number;
  /** The call's speech to text, when one is configured (`--stt openai`). */
  readonly stt?: SttProvider;
  /**
   * Keys and beeps are tones in the audio (`dtmf: "inband"`): a participant that
   * carries audio sends the other end's keys as tones (`tone_start`), never as key
   * messages, and reports the keys it decodes in its peer's audio with `press`'s
   * `inAudio`.
   */
  readonly inband?: boolean;
  /**
   * Keys are delivered as events (as with `event`), and a wire that has a signalling
   * way of its own for them uses it (`dtmf: "info"`: SIP INFO where the agent allows it).
   */
  readonly info?: boolean;
  /**
   * The line's noise while the other end is silent (a real line never is): a
   * participant that pads the other end's audio with silence writes this into the
   * silence `samples[from..]`, a stretch starting at call time `atMs` at `sampleRate`. The
   * other end's utterances already carry it.
   */
  readonly fill?: (samples: Int16Array, from: number, atMs: CallTime, sampleRate: number) => void;
}

/**
 * A caller's utterance that acts out a behaviour (`src/speech/behaviour.ts`), for the
 * record's caller events: `backchannel`, `filler`, `side` and `interrupt` are the
 * utterance itself; `pause` and `late` are the silence before it. `gainDb` (audio
 * calls) says it quieter (backchannels, speech to someone else in the room).
 */
export interface SayAct {
  /** The behaviour acted out. */
  kind: BehaviourKind;
  /** Said this many dB louder (negative: quieter); audio calls. */
  gainDb?: number;
  /** `pause`, `late`: when the silence began (else the end of the turn before). */
  sinceMs?: CallTime;
}

/** Audio a participant received from its peer for one utterance (audio calls). */
export interface ReceivedAudio {
  /** What was heard, mono. */
  pcm: Pcm16;
  /** Call time the audio began (the utterance is placed there, not at the `say`). */
  startMs: CallTime;
  /** The text given with it is already the STT's: the bridge does not transcribe it again. */
  transcribed?: boolean;
  /** The speaker cut it off itself (RTVI `bot-interrupted`): its turn is recorded as interrupted. */
  interrupted?: boolean;
}

/** How a participant acts on the call. Every method is safe to call after the end. */
export interface CallLine {
  /** Which end of the call this line belongs to. */
  readonly side: Side;
  /** The call's clock (simulated or real); times on this line are read from it. */
  readonly clock: Clock;
  /** Set in audio calls: see {@link LineAudio}. */
  readonly audio?: LineAudio;
  /**
   * Speak. The other end hears the text when the utterance ends (its length in time
   * is the utterance's, src/speech/utterance.ts). `ttftMs`: time to first token of
   * the LLM reply, if known. Returns when the words begin and end on the line, or
   * nothing when they are not said (the call is over) or the line does not time
   * speech (then the speaker paces itself, src/speech/utterance.ts `msUntilSaid`).
   * `audio` (audio calls): the utterance is this audio as received, placed at its
   * start, instead of a synthesis of `text`. `startMs`: the turn began then (a remote
   * end's text turn, assembled from fragments, starts at its first): its latency
   * counts to there, and a text call places it there. `interrupt`: said over the other
   * end on purpose (a barge-in the scenario or the caller's behaviour asks for): a
   * caller that takes turns (`src/participants/turn_taking.ts`) says it at once.
   */
  say(
    text: string,
    options?: {
      voice?: Voice;
      ttftMs?: number;
      audio?: ReceivedAudio;
      startMs?: CallTime;
      act?: SayAct;
      interrupt?: boolean;
    },
  ): SaidUtterance | void;
  /**
   * Audio calls, a remote end: its utterance began (its audio is arriving now, or
   * since `at`), so the other end hears it start as it plays, for barge-in, not when
   * the turn ends. The utterance itself follows with `say` and its `audio`.
   */
  startedSpeaking?(at?: CallTime): void;
  /** Cut off this end's utterance in progress (barge-in). */
  stopSpeaking(): void;
  /**
   * Press keys (`0-9 * # A-D`). `inAudio`: the keys were decoded from this end's own
   * audio (a remote end's in-band tones, already on the line): they are recorded and
   * reach the other end at once, and no tone is generated for them. `atMs`: when they
   * came (a remote end's keys, stamped on arrival; default now).
   */
  press(keys: string, options?: { inAudio?: boolean; atMs?: CallTime }): void;
  /** A beep (the voicemail box's). */
  beep(): void;
  /** Call a tool; the harness executes it against the trial's world. */
  callTool(name: string, args: unknown): Promise<ToolCallReply>;
  /**
   * This end is talking in a turn it has not ended yet (a remote end's words or
   * voiced audio still coming in): the line is not silent, and an agent that talks
   * has acted (it is not `agent_silent`). Cheap: call it as often as words arrive.
   */
  active?(): void;
  /**
   * End the call. `agentEnd`: the agent ended the conversation the way
   * `end_conversation` does (a remote bot's `server-message {type:"end"}` or
   * `<exit>`), so the stop reason is `agent_end`, once what it said has been spoken.
   */
  hangUp(reason?: string, options?: { agentEnd?: boolean }): void;
  /** Count LLM token usage for this side. */
  usage(u: Usage): void;
  /**
   * `--agent-world self`: the bot applied this write to its own world (its
   * `action-applied` record). The bridge replays it on the trial's copy of the
   * agent's world, the reference bridge's shadow, and propagates the cross-side sync
   * (dual-control domains; elsewhere nothing happens).
   */
  applied?(action: Record<string, unknown>): void;
  /**
   * Audio calls: the other end's utterance numbered `utterance` (its `speech_start`'s
   * number) went out on this end's wire with its first sample at `atMs` (when its chunk
   * was sent: `SentMarks`), as `wire` when the wire changed it (resampled, µ-law), its
   * first sample's slot on the pacing grid `gridMs` when the mapping paces it. The record
   * places the utterance there (its turn on the grid from `gridMs`, the audio block's
   * `sent_ms` at `atMs`) and measures it on what was sent. By number, never by its audio:
   * a phrase said twice is the same cached audio, and two utterances with two times.
   */
  audioSent?(utterance: number, atMs: CallTime, wire?: Pcm16, gridMs?: CallTime): void;
  /** Record a participant-side trace entry (flows put their trace here). */
  trace(entry: Record<string, unknown>): void;
  /** This end broke (socket closed, garbage, unreachable): the trial ends in error. */
  fail(error: ParticipantError): void;
}

/** How the trial record describes a participant. */
export interface ParticipantInfo {
  /** The participant kind (its registry name, e.g. `oracle`, `llm`, `remote`). */
  kind: string;
  /** The agent's address, for remote participants. */
  url?: string;
  /** The LLM model name, for LLM-driven participants. */
  model?: string;
  /** Other settings that shape its behaviour (sampling, script source, ...). */
  settings?: Record<string, unknown>;
}

/** One end of a call (agent under test or caller): started, fed events, then closed. */
export interface Participant {
  /** How the trial record describes this participant. */
  readonly info: ParticipantInfo;
  /** Connect and configure. Throwing fails the trial with `setup_error`. */
  start(line: CallLine, setup: CallSetup): Promise<void>;
  /** Hear the other end. Must not throw or block. */
  onEvent(event: CallEvent): void;
  /**
   * `--agent-world self`: the bot's own account of its world, pulled after the call
   * and before `close` (`get_context_history`, then `get_scenario_summary`).
   */
  worldReport?(): Promise<SelfWorldReport>;
  /**
   * `--agent-world self`, dual-control domains: what a sync changed on the agent's
   * side during the call, for the bot's own world (`apply_sync_delta`, not awaited).
   */
  applySyncDelta?(delta: Record<string, unknown>): void;
  /**
   * The call is ending (the agent ended it, the other end hung up, a limit or an
   * error): hand the turn in progress to the line now, its words and the audio heard
   * so far, so that no turn is lost. With `wait` (the agent itself ends the call), a
   * turn still being heard may be handed over when it ends; the promise resolves
   * then. Called before the end takes effect; the line still takes `say`.
   */
  flush?(options: { wait: boolean }): Promise<void> | void;
  /**
   * Audio calls: what this participant's far end receives of `audio` on its wire (its
   * rate and codec: 8 kHz µ-law on Twilio), so that the tones it carries are recorded as
   * heard there (the record's `heard`). Without it the audio reaches the far end as is.
   */
  wireAudio?(audio: Pcm16): Pcm16;
  /** Release resources; called once, after the call. */
  close(): Promise<void>;
  /** Optional: what a simulated far end did (flows), stored as the record's `flow`. */
  flowTrace?(): Record<string, unknown>;
}

/** How a participant can break; the trial record's error kinds build on these. */
export const PARTICIPANT_ERROR_KINDS = [
  "agent_unreachable",
  /** The agent's server refused the connection (HTTP 401 or 403: a missing or wrong token). */
  "agent_unauthorized",
  "agent_disconnected",
  "agent_timeout",
  /** The agent connected but never spoke, pressed a key or called a tool (README). */
  "agent_silent",
  "protocol_error",
  "user_error",
  "model_error",
] as const;
/** One of `PARTICIPANT_ERROR_KINDS`. */
export type ParticipantErrorKind = typeof PARTICIPANT_ERROR_KINDS[number];

/**
 * A connected peer's own report of a fatal failure (an RTVI `error` with `fatal`). The
 * peer never chooses the trial's error kind: whatever kind it claims (even
 * `agent_unreachable` or `agent_unauthorized`, which only callbench can observe), a
 * broken agent is `protocol_error` and a broken caller `user_error`, with the peer's
 * words and its claim in the message.
 */
export function peerFailure(side: Side, message: string, claimed?: string): ParticipantError {
  const claim = claimed === undefined ? "" : ` (it claimed ${JSON.stringify(claimed)})`;
  return new ParticipantError(side === "agent" ? "protocol_error" : "user_error", message + claim);
}

/**
 * A participant failed in a way that is not the agent's choice (socket closed,
 * unreachable, garbage on the wire): the trial ends with this error kind.
 */
export class ParticipantError extends Error {
  /** `kind`: the trial's error kind; `message`: what broke, for the record. */
  constructor(
    readonly kind: ParticipantErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "ParticipantError";
  }
}
