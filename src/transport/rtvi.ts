/**
 * The RTVI 2.1 mapping: any bot speaking RTVI over WebSocket (our own `serve`, a
 * pipecat bot, the reference's bots), as RTVI JSON in text frames (`json`) or inside
 * pipecat protobuf frames (`protobuf`). The harness still owns the world: the bot asks
 * for tool calls (`llm-function-call-in-progress`) and gets each result back
 * (`llm-function-call-result`). Works for either side of the call.
 *
 * What the bot is told is what a real callee would get: its prompt, tools, domain
 * and the scenario's name; never expected state, reference actions or flow nodes.
 * Its spoken turns are assembled by `./rtvi_turns.ts`.
 *
 * Everything received is bounded before it is looked at: a frame over the frame cap
 * (`./ws_client.ts`), or a message nested deeper than 64 levels or larger than the
 * size cap (`../protocol/limits.ts`), fails the trial with `protocol_error`.
 *
 * Audio calls (`eval --audio`: the line has `audio`): the bot hears the other end's
 * audio and nothing else of its speech: no text (`send-text` goes out only as the
 * one-time kick) and no `call_event` marking where an utterance starts or ends
 * (unless `transcripts`, `eval --hints transcript`, asks for them), and its
 * own audio is what the call records (`./rtvi_audio.ts`). Its turns are bracketed by
 * `bot-started/stopped-speaking` when it sends them, else found by VAD; their words
 * are its text events (else the bridge's STT, else `[words unknown]`). Bad audio from
 * the bot (a malformed or oversized frame, a rate outside `AUDIO_SAMPLE_RATES`, bytes
 * that are not whole PCM16 frames) fails the trial with `protocol_error` naming the
 * problem, like any other garbage: a recording with a hole in it would measure wrong.
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
  peerFailure,
  type SelfWorldReport,
  type SelfWorldSetup,
} from "../bridge/call.ts";
import { z } from "zod";
import type { Side } from "../domains/domain.ts";
import { type Framing, MAX_FRAME_BYTES, readFrame, writeFrame } from "../protocol/framing.ts";
import { checkValueLimits } from "../protocol/limits.ts";
import {
  BotOutputDataSchema,
  BotReadyDataSchema,
  decodeBotTtsAudio,
  ErrorDataSchema,
  ErrorResponseDataSchema,
  FunctionCallDataSchema,
  FunctionCallInProgressDataSchema,
  MetricsDataSchema,
  parseMessage,
  PROTOCOL_VERSION,
  rawAudioMessage,
  rtvi,
  type RtviMessage,
  ServerMessageDataSchema,
  ServerResponseDataSchema,
  TextDataSchema,
} from "../protocol/messages.ts";
import { decodePipecatFrame, encodeAudioFrame } from "../protocol/protobuf.ts";
import type { PcmAudio } from "../protocol/audio_payload.ts";
import { Vad } from "../audio/vad.ts";
import { type Pcm16, pcm16, toMono } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import {
  CallerAudioStream,
  PeerAudioReceiver,
  SILENT_WIRE_CHUNK,
  WIRE_SEND_RATE,
} from "./rtvi_audio.ts";
import { MAX_NOTES_CHARS, MIN_NOTE_CHARS, ToolCallBounds } from "./flood_bounds.ts";
import { Correlator } from "./correlator.ts";
import {
  connectOptions,
  remoteInfo,
  type ResolvedRemote,
  type WireMapping,
  WORDS_UNKNOWN,
} from "./mapping.ts";
import { type AssembledTurn, joinFragments, TurnAssembler } from "./rtvi_turns.ts";
import { WsClient } from "./ws_client.ts";

const CLIENT_ABOUT = { library: "callbench", library_version: "0.1.0" } as const;
const DEFAULT_REPLY_TIMEOUT_MS = 15_000;
const DEFAULT_PROMPT_REPLY_WAIT_MS = 1000;
/** `--agent-world self`: the runner's pause between setup and call (`--pause`). */
const SELF_WORLD_PAUSE_MS = 500;
/** `--agent-world self`: the "Hello" kick, this long after the call's connection opened. */
const SELF_WORLD_KICK_MS = 1000;
/** The agent ended the call mid-turn: its turn's audio is waited for this long at most. */
const FLUSH_WAIT_MS = 5000;
/** …and a turn without brackets, this long after its audio played out with no more. */
const FLUSH_QUIET_MS = 200;

/** The RTVI mapping (`--framing json|protobuf`). */
export const rtviMapping: WireMapping = (options) => new RtviParticipant(options);

/**
 * A wire whose audio goes on media tracks of its own (WebRTC: `./smallwebrtc.ts`), not
 * in RTVI frames: the RTVI messages are the same, the audio is paced at its rate and
 * chunk length and handed to it, and the peer's audio comes from it.
 */
export interface RtviMedia {
  /** The rate and chunk length of the caller's audio on the track. */
  sampleRate: number;
  chunkMs: number;
  /** Sends one paced chunk (`silent`: the stream's one silent chunk). */
  send(chunk: PcmAudio, silent: boolean): void;
  /** Hands the peer's audio to `push` as it comes, with when it arrived. */
  listen(push: (audio: PcmAudio, arrivedAt: number) => void): void;
}

export class RtviParticipant implements Participant {
  readonly info: ParticipantInfo;
  readonly #options: ResolvedRemote;
  readonly #framing: Framing;
  readonly #side: Side;
  #line?: CallLine;
  #client?: WsClient;
  #botVersion = PROTOCOL_VERSION;
  #nextId = 0;
  #readyId?: string;
  readonly #requests = new Correlator<RtviMessage>(() => this.#line!.clock);
  readonly #turns = new TurnAssembler(
    () => this.#line!.clock,
    (turn) => this.#assembled(turn),
    (what) => this.#overflow(`turn exceeded ${what}`),
  );
  /** Audio calls: the other end's audio going out, and the bot's coming in. */
  #outAudio?: CallerAudioStream;
  #inAudio?: PeerAudioReceiver;
  #vad?: Vad;
  /** Between `bot-started-speaking` and `bot-stopped-speaking`. */
  #botSpeaking = false;
  /** Words of the audio turn being heard (audio calls). */
  #pending: AssembledTurn[] = [];
  /** Characters of the message being handled, and of the notes the bot made the call keep. */
  #frameChars = 0;
  #notesChars = 0;
  /** How fast, and how much, the bot may ask of tools (set at `start`). */
  #toolBounds?: ToolCallBounds;
  /** The bot's turn in progress was heard starting (`CallLine.startedSpeaking`). */
  #liveTurn = false;
  /** The bot cut the turn in progress off itself (`bot-interrupted`). */
  #cutOff = false;
  /** Waiting for the turn in progress to end (`flush` with `wait`). */
  #turnEnded: (() => void)[] = [];
  /** `--agent-world self`: the bot owns its world. */
  #selfWorld?: SelfWorldSetup;
  /** The domain named in the self-world setup, for in-call `apply_sync_delta`. */
  #selfWorldDomain = "default";
  /** When the newest connection opened, on the line's clock. */
  #connectedAt = 0;
  #cancelKick = () => {};
  /** The connection whose close is heard (the setup connection is closed on purpose). */
  #connection?: object;
  /** `action-applied` records the bot announced (self-owned world). */
  readonly #applied: Record<string, unknown>[] = [];
  /** The call is over (hangup heard, or the bot ended it): a closed socket is no failure. */
  #ended = false;
  #closing = false;
  #failed = false;

  readonly #media?: RtviMedia;

  constructor(options: ResolvedRemote, media?: RtviMedia) {
    this.#options = options;
    this.#media = media;
    this.#framing = options.framing === "protobuf" ? "protobuf" : "json";
    this.#side = options.side;
    this.info = remoteInfo(options);
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#toolBounds = new ToolCallBounds(line.clock);
    if (line.audio) await this.#startAudio(line);
    await this.#connect();
    if (setup.agent_world) return this.#configureSelfWorld(setup, setup.agent_world);
    const tools = this.#options.toolsFormat === "names"
      ? Object.fromEntries(setup.tools.map((t) => [t.name, {}]))
      : setup.tools;
    // The reply is optional, as the reference runner treats it: the call starts once
    // the bot accepts, or after a short wait without an answer (silence is no
    // refusal). A refusal, whenever it comes, fails the trial with the bot's words.
    const promptMessage = rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: setup.prompt,
        tools: JSON.stringify(tools),
        add_suffix: false,
        tool_domain: setup.domain,
        scenario: setup.scenario,
        side: setup.side,
        seed: setup.seed,
        ...(setup.userdata ? { userdata: setup.userdata } : {}),
        ...(setup.scenario_sha256 ? { scenario_sha256: setup.scenario_sha256 } : {}),
        ...(setup.language ? { language: setup.language } : {}),
        ...(setup.tools_server ? { tools_server: setup.tools_server } : {}),
      },
    }, this.#id("update_prompt"));
    const refusal = (e: ParticipantError) =>
      // A served participant that refuses the scenario names its own data root; name ours.
      setup.data_root !== undefined && e.kind === "protocol_error"
        ? new ParticipantError(e.kind, `${e.message} (this run's data root: ${setup.data_root})`)
        : e;
    let inStart = true;
    let cancelWait = () => {};
    await new Promise<void>((resolve, reject) => {
      cancelWait = this.#line!.clock.timer(this.#promptReplyWaitMs(), resolve);
      this.#request(promptMessage, "server-response", null).then((reply) => {
        const accepted = ServerResponseDataSchema.safeParse(reply.data);
        if (accepted.success && accepted.data.d === false) {
          throw new ParticipantError(
            "protocol_error",
            `${this.#who()} refused update_system_prompt (reply ${JSON.stringify(reply.data)})`,
          );
        }
        resolve();
      }).catch((e: ParticipantError) => {
        // A closed socket after the start is reported by the close handler.
        if (!inStart && e.kind === "agent_disconnected") return;
        if (inStart) reject(refusal(e));
        else this.#fail(refusal(e));
      });
    }).finally(() => {
      inStart = false;
      cancelWait();
    });
  }

  /**
   * `--agent-world self`: configures a bot that owns its world as the reference
   * runner does (reference-harness.md §1.4): `reset`, `update_system_prompt` with the
   * reference's tools object (not awaited), `apply_initialization` (awaited: a
   * refusal or `success:false` fails the setup), and for telecom `apply_sync_delta`;
   * then it closes that connection and, after the runner's pause, opens the one the
   * call runs on (`client-ready` again). The bot runs its own tools; its final state
   * is pulled by `worldReport` on the call's connection.
   */
  async #configureSelfWorld(setup: CallSetup, world: SelfWorldSetup): Promise<void> {
    this.#selfWorld = world;
    this.#selfWorldDomain = setup.domain;
    this.#send(rtvi("client-message", { t: "reset", d: {} }, this.#id("reset")));
    this.#send(rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: setup.prompt,
        tools: JSON.stringify(world.tools),
        add_suffix: false,
        tool_domain: setup.domain,
      },
    }, this.#id("update_prompt")));
    const init = await this.#request(
      rtvi("client-message", {
        t: "apply_initialization",
        d: {
          domain: setup.domain,
          shared_state_init: JSON.stringify(world.shared_state_init),
          actions: world.actions,
        },
      }, this.#id("apply_init_agent")),
      "server-response",
    );
    this.#checkSuccess("apply_initialization", init);
    if (world.sync_delta && Object.keys(world.sync_delta).length > 0) {
      const sync = await this.#request(
        rtvi("client-message", {
          t: "apply_sync_delta",
          d: { domain: setup.domain, delta: world.sync_delta },
        }, this.#id("apply_sync_delta_agent")),
        "server-response",
      );
      this.#checkSuccess("apply_sync_delta", sync);
    }
    // As the reference runner: disconnect, pause, and run the call on a fresh
    // connection; the bot keeps its state across reconnects (§1.1). No
    // `disconnect-bot`: it would end a reference bot's pipeline.
    const setupConnection = this.#client!;
    this.#connection = undefined;
    await setupConnection.close(1000, "configured");
    await this.#line!.clock.sleep(SELF_WORLD_PAUSE_MS);
    await this.#connect();
  }

  /**
   * `--agent-world self`, during the call: a sync delta for the bot's own world, sent
   * as the reference bridge sends it, without waiting for the reply (§7.3).
   */
  applySyncDelta(delta: Record<string, unknown>): void {
    if (!this.#selfWorld || this.#closing) return;
    this.#line?.trace({ type: "sync_delta", side: "agent", delta });
    this.#send(rtvi("client-message", {
      t: "apply_sync_delta",
      d: { domain: this.#selfWorldDomain, delta },
    }, this.#id("apply_sync_delta_agent")));
  }

  /** A `{success, errors}` reply that says no fails the setup. */
  #checkSuccess(what: string, reply: RtviMessage): void {
    const d = ServerResponseDataSchema.safeParse(reply.data);
    const result = d.success ? d.data.d as { success?: unknown; errors?: unknown } : undefined;
    if (result?.success === true) return;
    throw new ParticipantError(
      "protocol_error",
      `${this.#who()} could not ${what}: ${JSON.stringify(result?.errors ?? reply.data)}`,
    );
  }

  /**
   * The bot's own account of its world after the call (`get_context_history`, then
   * `get_scenario_summary`), each waited for as the reference does; a bot that does
   * not answer reports nothing (`db_hash: null`).
   */
  async worldReport(): Promise<SelfWorldReport> {
    const pull = async (t: string, d: Record<string, unknown>): Promise<unknown> => {
      if (!this.#client?.open) return undefined;
      try {
        const reply = await this.#request(
          rtvi("client-message", { t, d }, this.#id(t)),
          "server-response",
        );
        const parsed = ServerResponseDataSchema.safeParse(reply.data);
        return parsed.success ? parsed.data.d : undefined;
      } catch (e) {
        this.#line?.trace({ type: "pull_failed", request: t, error: (e as Error).message });
        return undefined;
      }
    };
    const history = await pull("get_context_history", {});
    const summary = await pull("get_scenario_summary", {
      include_db: this.#selfWorld?.include_db ?? false,
    });
    const parsed = SummarySchema.safeParse(summary);
    const context = (history as { context?: unknown } | undefined)?.context;
    return {
      db_hash: parsed.success ? parsed.data.db_hash ?? null : null,
      ...(parsed.success && parsed.data.db !== undefined ? { db: parsed.data.db } : {}),
      // The bot's own records, or what it announced as action-applied meanwhile.
      actions: parsed.success && parsed.data.actions ? parsed.data.actions : this.#applied,
      ...(context !== undefined ? { context } : {}),
    };
  }

  /**
   * Opens a connection and greets the bot (`client-ready`, then its `bot-ready`). Only
   * the newest connection's close is heard: the self-world setup connection is
   * closed on purpose.
   */
  async #connect(): Promise<void> {
    const line = this.#line!;
    const connection = {};
    this.#connection = connection;
    this.#client = await WsClient.connect({
      ...connectOptions(this.#options, line.clock),
      maxFrameBytes: this.#maxFrameBytes(),
      onFrame: (data) => this.#onFrame(data),
      onGarbage: (what) => this.#garbage(what),
      onClosed: (event) => {
        if (connection === this.#connection) this.#onSocketClosed(event);
      },
    });
    this.#connectedAt = line.clock.now();
    this.#readyId = this.#id("client_ready");
    const ready = await this.#request(
      rtvi("client-ready", { version: PROTOCOL_VERSION, about: CLIENT_ABOUT }, this.#readyId),
      "bot-ready",
    );
    const about = BotReadyDataSchema.safeParse(ready.data);
    if (about.success) this.#botVersion = about.data.version;
  }

  /** How long `start` waits for the reply to `update_system_prompt` before going on. */
  #promptReplyWaitMs(): number {
    return this.#options.promptReplyWaitMs ?? DEFAULT_PROMPT_REPLY_WAIT_MS;
  }

  onEvent(event: CallEvent): void {
    switch (event.type) {
      case "speech":
        if (this.#outAudio) {
          // The bot heard it as audio; a cut drops the rest. The words and the end of
          // the utterance are no news on a phone line: only with `transcripts`.
          if (event.interrupted) this.#outAudio.clear();
          if (this.#options.transcripts) this.#callEvent(event);
          return;
        }
        this.#send(rtvi("send-text", {
          content: event.text,
          options: { run_immediately: true, audio_response: true },
          ...(event.voice ? { voice: event.voice } : {}),
          ...(event.interrupted ? { interrupted: true } : {}),
        }, this.#id("send_text")));
        return;
      case "dtmf":
        // In-band keys reached the bot as tones in its audio (`tone_start`).
        if (this.#outAudio && this.#line?.audio?.inband) return;
        this.#sendKeys(event.keys);
        return;
      case "tone_start":
        this.#outAudio?.play(event.audio);
        return;
      case "hangup":
        this.#ended = true;
        this.#outAudio?.stop();
        this.#callEvent(event);
        return;
      case "speech_start":
        if (this.#outAudio) {
          if (event.audio) {
            const number = event.utterance;
            this.#outAudio.play(
              event.audio,
              number === undefined
                ? undefined
                : (at, grid) => this.#line?.audioSent?.(number, at, undefined, grid),
            );
          }
          if (this.#options.transcripts) this.#callEvent(event);
          return;
        }
        return this.#callEvent(event);
      default: {
        if (event.type === "call_start") this.#outAudio?.start();
        this.#callEvent(event);
        // A reference-style bot waits for the runner's "Hello" before it greets.
        const kick = this.#options.kick ?? (this.#selfWorld ? "Hello" : undefined);
        if (event.type === "call_start" && kick !== undefined) {
          const content = kick;
          const sendKick = () => {
            if (this.#ended || this.#closing) return;
            // Sent as the reference runner sends it to a bot that owns its world; to
            // others marked as the kick, so a served bot does not take it for a request.
            this.#send(rtvi("send-text", {
              content,
              options: { run_immediately: true, audio_response: true },
              ...(this.#selfWorld ? {} : { kick: true }),
            }, this.#id("send_text")));
          };
          // The reference runner kicks 1 s after the call's connection opened.
          const clock = this.#line!.clock;
          if (this.#selfWorld) {
            const wait = Math.max(0, this.#connectedAt + SELF_WORLD_KICK_MS - clock.now());
            this.#cancelKick = clock.timer(wait, sendKick);
          } else sendKick();
        }
      }
    }
  }

  /** Our `call_event` notice; a reference-style bot (self-owned world) knows none. */
  #callEvent(event: CallEvent): void {
    if (this.#selfWorld) return;
    // Audio goes on the wire as audio, never inside a notice.
    const d = event.type === "speech_start" && event.audio
      ? { type: event.type, at: event.at, ...(event.voice ? { voice: event.voice } : {}) }
      : event;
    this.#send(rtvi("client-message", { t: "call_event", d }, this.#id("call_event")));
  }

  /**
   * The call is ending: the bot's turn in progress goes to the line first. With
   * `wait`, a turn whose audio is still arriving is handed over when it ends
   * (`bot-stopped-speaking`, else the VAD's end), at most {@link FLUSH_WAIT_MS} on.
   */
  flush(options: { wait: boolean }): Promise<void> | void {
    if (this.#closing) return;
    const rx = this.#inAudio;
    if (options.wait && rx && (this.#botSpeaking || rx.hasAudio)) {
      const clock = this.#line!.clock;
      const until = clock.now() + FLUSH_WAIT_MS;
      let cancel = () => {};
      // Without brackets, the turn is over once its audio has played out and no more
      // came for a moment.
      const check = () => {
        const now = clock.now();
        const playedOut = rx.playedOutAt ?? now;
        if (now >= until || (!this.#botSpeaking && now >= playedOut + FLUSH_QUIET_MS)) {
          return this.#endTurn();
        }
        cancel = clock.timer(
          Math.min(until, Math.max(playedOut + FLUSH_QUIET_MS, now + FLUSH_QUIET_MS)) - now,
          check,
        );
      };
      return new Promise<void>((resolve) => {
        this.#turnEnded.push(() => {
          cancel();
          resolve();
        });
        check();
      });
    }
    this.#endTurn();
  }

  /** What the bot gets of `audio` in an audio call: 16 kHz PCM16 (the tones it is sent are heard so). */
  wireAudio(audio: Pcm16): Pcm16 {
    const mono = toMono(audio);
    const rate = this.#media?.sampleRate ?? WIRE_SEND_RATE;
    return mono.sampleRate === rate
      ? mono
      : pcm16(resample(mono.samples, mono.sampleRate, rate), rate);
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#cancelKick();
    this.#turns.cancel();
    this.#outAudio?.stop();
    this.#inAudio?.cancel();
    if (this.#outAudio && this.#inAudio) {
      this.#line?.trace({
        type: "rtvi_audio",
        sent: this.#outAudio.stats,
        received: this.#inAudio.stats,
      });
    }
    this.#vad?.free();
    this.#vad = undefined;
    this.#requests.rejectAll(new ParticipantError("agent_disconnected", "closed"));
    const client = this.#client;
    if (!client || client.closed) return;
    // A reference bot's pipeline must outlive the call: it gets no `disconnect-bot`.
    if (client.open && !this.#selfWorld) {
      this.#send(rtvi("disconnect-bot", {}, this.#id("disconnect")));
    }
    await client.close(1000, "call over");
  }

  // ---- connection ----------------------------------------------------------------

  #onSocketClosed(event: { code: number; reason: string }): void {
    if (!this.#closing) this.#endTurn();
    const error = new ParticipantError(
      "agent_disconnected",
      `${this.#who()} closed the connection (code ${event.code}${
        event.reason ? `, ${event.reason}` : ""
      })`,
    );
    this.#requests.rejectAll(error);
    if (!this.#closing && !this.#ended) this.#fail(error);
  }

  // ---- requests ------------------------------------------------------------------

  #id(prefix: string): string {
    return `${prefix}_${++this.#nextId}`;
  }

  /**
   * Sends a request and waits for the reply with its id (`expect` or an
   * error-response), at most `timeoutMs` (default `replyTimeoutMs`; `null`: as long
   * as the connection lasts).
   */
  #request(
    message: RtviMessage,
    expect: string,
    timeoutMs: number | null = this.#options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS,
  ): Promise<RtviMessage> {
    const id = message.id!;
    const reply = this.#requests.wait(id, {
      timeoutMs,
      timedOut: () =>
        new ParticipantError(
          "agent_timeout",
          `${this.#who()} did not answer ${describeRequest(message)} within ${timeoutMs} ms`,
        ),
      accept: (reply) => {
        if (reply.type === "error-response") {
          // pipecat reports an old client version this way and still sends bot-ready.
          if (expect === "bot-ready") {
            this.#line?.trace({ type: "bot_warning", reply: reply.data });
            return "ignore";
          }
          const text = ErrorResponseDataSchema.safeParse(reply.data);
          return {
            refuse: new ParticipantError(
              "protocol_error",
              `${this.#who()} refused ${describeRequest(message)}: ${
                text.success ? text.data.error : JSON.stringify(reply.data)
              }`,
            ),
          };
        }
        return reply.type === expect ? "reply" : "ignore";
      },
    });
    this.#send(message);
    return reply;
  }

  // ---- incoming ------------------------------------------------------------------

  #onFrame(data: string | Uint8Array): void {
    if (this.#failed) return; // what a broken peer still sends is not looked at
    const frame = readFrame(data, this.#maxFrameBytes());
    if (!frame.ok) return this.#garbage(frame.error);
    if ("skipped" in frame) {
      if (frame.skipped !== "audio" || !this.#inAudio || typeof data === "string") return;
      // A view of the frame: the receiver reads it at once, into buffers of its own.
      const audio = decodePipecatFrame(data, undefined, { copyAudio: false });
      if (!audio.ok) return this.#garbage(`bad AudioRawFrame: ${audio.problem.message}`);
      if (audio.frame.kind === "audio") return this.#peerAudio(audio.frame, "AudioRawFrame");
      return;
    }
    const parsed = parseMessage(frame.text);
    if (!parsed.ok) return this.#garbage(parsed.error);
    if (!parsed.message) return;
    // Before anything walks it: a value nested too deep breaks every recursive walk.
    const problem = checkValueLimits(parsed.message);
    if (problem) return this.#garbage(`a message ${problem}`);
    this.#frameChars = frame.text.length;
    this.#onMessage(parsed.message);
  }

  #onMessage(msg: RtviMessage): void {
    const line = this.#line!;
    // Words of a turn still coming: the bot is talking, not silent.
    if (TALKING.has(msg.type)) line.active?.();
    switch (msg.type) {
      case "bot-ready":
        // Some bots do not echo the client-ready id.
        if (!this.#requests.deliver(msg.id, msg)) this.#requests.deliver(this.#readyId, msg);
        return;
      case "server-response":
      case "error-response":
        this.#requests.deliver(msg.id, msg);
        return;
      case "bot-started-speaking":
        if (this.#inAudio) {
          if (this.#botSpeaking) this.#endTurn();
          this.#botSpeaking = true;
          this.#inAudio.startedSpeaking();
        }
        return this.#turns.startedSpeaking();
      case "bot-tts-audio": {
        if (!this.#inAudio) return;
        const audio = decodeBotTtsAudio(msg.data);
        if (!audio.ok) return this.#garbage(`bad bot-tts-audio: ${audio.problem.message}`);
        return this.#peerAudio(audio.value, "bot-tts-audio");
      }
      case "bot-output": {
        const data = BotOutputDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad bot-output: ${JSON.stringify(msg.data)}`);
        const { text, segment_id, voice, will_be_spoken } = data.data;
        return this.#turns.output(text, segment_id, voice, will_be_spoken);
      }
      case "bot-tts-started":
        return this.#turns.ttsStarted();
      case "bot-tts-text": {
        const data = TextDataSchema.safeParse(msg.data);
        if (!data.success) return;
        return this.#turns.ttsText(data.data.text);
      }
      case "bot-llm-text": {
        const data = TextDataSchema.safeParse(msg.data);
        if (!data.success) return;
        return this.#turns.llmText(data.data.text);
      }
      case "bot-stopped-speaking":
        this.#botSpeaking = false;
        return this.#endTurn();
      case "bot-interrupted":
        // In audio calls the turn being heard is recorded as cut off (it stopped, it
        // did not finish), which the interaction metrics read.
        if (this.#inAudio) this.#cutOff = true;
        line.stopSpeaking();
        return;
      case "llm-function-call-in-progress": {
        const data = FunctionCallInProgressDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad function call: ${JSON.stringify(msg.data)}`);
        const { tool_call_id, function_name, arguments: args } = data.data;
        // Without a name (pipecat's default report level) the bot runs the tool itself,
        // as a bot that owns its world runs every tool.
        if (function_name === undefined || this.#selfWorld) {
          if (!this.#keep()) return;
          return line.trace({ type: "unnamed_function_call", tool_call_id });
        }
        void this.#runTool(tool_call_id, function_name, args);
        return;
      }
      case "llm-function-call": {
        const data = FunctionCallDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad function call: ${JSON.stringify(msg.data)}`);
        if (this.#selfWorld) {
          if (!this.#keep()) return;
          return line.trace({ type: "bot_function_call", tool_call_id: data.data.tool_call_id });
        }
        void this.#runTool(data.data.tool_call_id, data.data.function_name, data.data.args);
        return;
      }
      case "server-message":
        return this.#onServerMessage(msg.data);
      case "metrics": {
        const data = MetricsDataSchema.safeParse(msg.data);
        if (!data.success) return;
        for (const t of data.data.tokens ?? []) {
          line.usage({ prompt_tokens: t.prompt_tokens, completion_tokens: t.completion_tokens });
        }
        const llm = data.data.ttfb?.find((m) => /llm/i.test(m.processor));
        if (llm) this.#turns.ttftMs = Math.round(llm.value * 1000);
        return;
      }
      case "error": {
        const data = ErrorDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad error message: ${JSON.stringify(msg.data)}`);
        if (!data.data.fatal) {
          if (!this.#keep()) return;
          return line.trace({ type: "bot_error", error: data.data.error });
        }
        return this.#fail(
          peerFailure(this.#side, `${this.#who()}: ${data.data.error}`, data.data.kind),
        );
      }
      default:
        return; // other RTVI events (transcriptions, LLM text, ...) carry nothing the call needs
    }
  }

  #onServerMessage(data: unknown): void {
    const line = this.#line!;
    const parsed = ServerMessageDataSchema.safeParse(data);
    if (!parsed.success) return;
    const m = parsed.data;
    if ("type" in m && m.type === "end") {
      // What the bot said before it ended is said first.
      this.#endTurn();
      this.#ended = true;
      return line.hangUp(typeof m.reason === "string" ? m.reason : undefined, { agentEnd: true });
    }
    if ("type" in m && m.type === "beep") return line.beep();
    if ("type" in m && m.type === "action-applied") {
      const action = (m as { action?: unknown }).action;
      if (!this.#keep()) return;
      line.trace({ type: "action_applied", action });
      if (typeof action === "object" && action !== null && !Array.isArray(action)) {
        this.#applied.push(action as Record<string, unknown>);
        // Its world is the bot's: the bridge's shadow follows it (dual-control sync).
        if (this.#selfWorld) line.applied?.(action as Record<string, unknown>);
      }
      return;
    }
    if ("type" in m && m.type === "trace") {
      if (!this.#keep()) return;
      return line.trace(m.entry as Record<string, unknown>);
    }
    const exit = "text" in m && typeof m.text === "string" ? EXIT_TAG.exec(m.text) : null;
    if (exit) {
      this.#endTurn();
      this.#ended = true;
      return line.hangUp(exit[1]!.trim(), { agentEnd: true });
    }
  }

  /** Runs a tool for the bot on the harness's world and sends back the result. */
  async #runTool(toolCallId: string, name: string, rawArgs: unknown): Promise<void> {
    if (this.#failed || this.#closing) return;
    const size = typeof rawArgs === "string"
      ? rawArgs.length
      : JSON.stringify(rawArgs ?? {}).length;
    const over = this.#toolBounds?.take(name.length + size);
    if (over) return this.#overflow(over);
    const args = typeof rawArgs === "string" ? parseJsonOr(rawArgs) : rawArgs ?? {};
    // Arguments sent as JSON text are a value of their own, bounded like the message.
    const problem = typeof rawArgs === "string" ? checkValueLimits(args) : undefined;
    if (problem) return this.#garbage(`arguments of ${name} ${problem}`);
    const reply = await this.#line!.callTool(name, args);
    this.#send(rtvi("llm-function-call-result", {
      function_name: name,
      tool_call_id: toolCallId,
      arguments: args,
      result: reply.result,
    }));
  }

  // ---- audio ---------------------------------------------------------------------

  async #startAudio(line: CallLine): Promise<void> {
    const audio = line.audio!;
    this.#vad = await Vad.create({ sampleRate: audio.sampleRate, frameMs: 20 });
    this.#inAudio = new PeerAudioReceiver({
      clock: line.clock,
      sampleRate: audio.sampleRate,
      vad: this.#vad,
      onVadTurnEnd: () => this.#endTurn(),
      onBound: (what) => this.#overflow(what),
      onVadTurnStart: () => this.#turnBegan(),
      // In-band keys: the bot's tones, decoded from its audio, are its key presses.
      ...(audio.inband ? { onDtmf: (key: string) => line.press(key, { inAudio: true }) } : {}),
    });
    const media = this.#media;
    const out: CallerAudioStream = this.#outAudio = new CallerAudioStream({
      clock: line.clock,
      send: media
        ? (chunk): void => media.send(chunk, chunk === out.silentChunk)
        : (chunk) => this.#sendAudio(chunk),
      ...(audio.fill ? { fill: audio.fill } : {}),
      ...(media ? { sampleRate: media.sampleRate, chunkMs: media.chunkMs } : {}),
    });
    media?.listen((pcm, at) => this.#peerAudio(pcm, "audio on the track", at));
  }

  #sendAudio(chunk: PcmAudio): void {
    if (chunk === SILENT_WIRE_CHUNK) {
      // Most chunks of a call are silence: its frame is encoded once per process.
      this.#client?.send(silentFrames[this.#framing] ??= encodeAudio(chunk, this.#framing));
      return;
    }
    this.#client?.send(encodeAudio(chunk, this.#framing));
  }

  #peerAudio(audio: PcmAudio, what: string, arrivedAt?: number): void {
    if (this.#failed || this.#closing) return;
    const problem = this.#inAudio!.push(audio, arrivedAt);
    if (problem) return this.#garbage(`bad ${what}: ${problem}`);
    if (this.#botSpeaking || this.#inAudio!.speaking) this.#line?.active?.();
    // A bracketed turn is heard starting with its first audio, not its announcement.
    if (this.#botSpeaking) this.#turnBegan();
  }

  /** The bot's turn is heard starting (its audio plays now): the caller may cut in. */
  #turnBegan(): void {
    if (this.#liveTurn || this.#closing) return;
    this.#liveTurn = true;
    this.#line!.startedSpeaking?.();
  }

  /** A finished text turn: in audio calls it waits for the audio it goes with. */
  #assembled(turn: AssembledTurn): void {
    const rx = this.#inAudio;
    if (rx && (this.#botSpeaking || rx.hasAudio || rx.speaking)) {
      this.#pending.push(turn);
      return;
    }
    // Text with no audio (a bot without TTS): the bridge synthesizes it.
    const { text, ...options } = turn;
    this.#line!.say(text, options);
  }

  /** The bot's turn ended: its words and, in audio calls, the audio they were heard as. */
  #endTurn(): void {
    this.#turns.flush();
    const waiting = this.#turnEnded;
    this.#turnEnded = [];
    try {
      this.#handOver();
    } finally {
      for (const w of waiting) w();
    }
  }

  #handOver(): void {
    const rx = this.#inAudio;
    if (!rx) return;
    this.#liveTurn = false;
    const cutOff = this.#cutOff;
    this.#cutOff = false;
    const heard = rx.take();
    const pending = this.#pending;
    this.#pending = [];
    const text = joinFragments(pending.map((t) => t.text));
    const last = pending[pending.length - 1];
    const voice = pending.find((t) => t.voice)?.voice;
    const ttftMs = pending.find((t) => t.ttftMs !== undefined)?.ttftMs;
    const options = {
      ...(voice ? { voice } : {}),
      ...(ttftMs !== undefined ? { ttftMs } : {}),
    };
    if (!heard) {
      if (last) this.#line!.say(text, { ...options, startMs: pending[0]!.startMs });
      return;
    }
    this.#line!.say(text === "" ? WORDS_UNKNOWN : text, {
      ...options,
      audio: { pcm: heard.pcm, startMs: heard.startMs, ...(cutOff ? { interrupted: true } : {}) },
    });
  }

  // ---- outgoing ------------------------------------------------------------------

  #sendKeys(keys: string): void {
    const [major, minor] = this.#botVersion.split(".").map(Number);
    if (major === 2 && (minor ?? 0) < 1) {
      for (const button of keys) this.#send(rtvi("dtmf", { button }, this.#id("dtmf")));
      return;
    }
    this.#send(rtvi("dtmf", { buttons: [...keys] }, this.#id("dtmf")));
  }

  #send(message: RtviMessage): void {
    this.#client?.send(writeFrame(message, this.#framing));
  }

  #garbage(what: string): void {
    this.#fail(new ParticipantError("protocol_error", `${this.#who()} sent garbage: ${what}`));
  }

  /** The bot makes the call keep a note (the message being handled): false past the bound. */
  #keep(): boolean {
    this.#notesChars += Math.max(MIN_NOTE_CHARS, this.#frameChars);
    if (this.#notesChars <= MAX_NOTES_CHARS) return true;
    this.#overflow(`sent more than ${MAX_NOTES_CHARS} characters of traces and notes`);
    return false;
  }

  /** A flood past its bound (`./rtvi_turns.ts`, `./rtvi_audio.ts`, `./flood_bounds.ts`). */
  #overflow(what: string): void {
    this.#fail(new ParticipantError("protocol_error", `${this.#who()}: ${this.#side} ${what}`));
  }

  #fail(error: ParticipantError): void {
    if (this.#failed || this.#closing) return;
    this.#failed = true;
    this.#line?.fail(error);
  }

  #maxFrameBytes(): number {
    return this.#options.maxFrameBytes ?? MAX_FRAME_BYTES;
  }

  #who(): string {
    return `the ${this.#side} at ${this.#options.shownUrl}`;
  }
}

/** What `get_scenario_summary` answers (reference-harness.md §1.10.5). */
const SummarySchema = z.looseObject({
  actions: z.array(z.record(z.string(), z.unknown())).optional(),
  db_hash: z.string().nullable().optional(),
  db: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** Events that carry a turn's words or open it. */
const TALKING = new Set(["bot-started-speaking", "bot-output", "bot-tts-text", "bot-llm-text"]);

/** `<exit>…</exit>` anywhere in a text (the reference's exit message). */
const EXIT_TAG = /<exit>([\s\S]*?)<\/exit>/;

function describeRequest(message: RtviMessage): string {
  const t = (message.data as { t?: unknown } | undefined)?.t;
  return typeof t === "string" ? `${message.type} ${t}` : message.type;
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The frame of the silent chunk, per framing (encoded once). */
const silentFrames: Partial<Record<Framing, string | Uint8Array<ArrayBuffer>>> = {};

/** One chunk of the caller's audio as a frame of the call's framing. */
function encodeAudio(chunk: PcmAudio, framing: Framing): string | Uint8Array<ArrayBuffer> {
  return framing === "protobuf"
    ? encodeAudioFrame(chunk)
    : writeFrame(rawAudioMessage(chunk), "json");
}
