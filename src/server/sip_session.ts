/**
 * One SIP call answered by `serve --sip`, on a hosted session: the call drives an
 * ordinary audio `Session` (src/server/session.ts) in-process, as an RTVI client would,
 * so a SIP call gets the same participants, world, bounds and tools endpoint as a
 * WebSocket one. It sends `client-ready`, then sets the session up from the scenario the
 * call named (`update_system_prompt` with its prompt and tools, `apply_initialization`
 * with its world), and starts the call with the answering side speaking first. The far
 * end's audio (8 kHz, from RTP) goes in as `raw-audio`, its keys (RFC 4733) as `dtmf`;
 * the session's speech (`bot-tts-audio`, paced in 20 ms chunks at 8 kHz by the session)
 * goes out to the media, its keys (`send_dtmf`) as telephone events, and its end of the
 * call (`server-message` end or exit, a fatal `error`, a closed socket) becomes a BYE.
 *
 * The media (RTP, SIP) are outside: this file sees only `SipCallMedia`.
 *
 * @module
 */
import type { CallSetup, ToolCallReply } from "../bridge/call.ts";
import { toolSpecs } from "../bridge/tool_specs.ts";
import { deliverableResult, type Environment } from "../env/environment.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { openEnvironment, WORLD_SEED } from "../scenario/open_environment.ts";
import type { Side } from "../domains/domain.ts";
import { pcm16FromBytes, pcm16ToBytes } from "../audio/pcm.ts";
import {
  decodeBotTtsAudio,
  rawAudioMessage,
  rtvi,
  type RtviMessage,
} from "../protocol/messages.ts";
import { writeFrame } from "../protocol/framing.ts";
import type { Scenario } from "../scenario/scenario.ts";
import {
  type HostedParticipantFactory,
  Session,
  type SessionOptions,
  type SessionToolsRegistry,
} from "./session.ts";
import type { SessionAudioOptions } from "./session_audio.ts";

/** The rate of a G.711 call. */
export const SIP_AUDIO_RATE = 8000;

/** What a hosted call needs of its SIP dialog and RTP stream. */
export interface SipCallMedia {
  /** One chunk of the session's speech, 8 kHz mono PCM, as it is due (RTP out). */
  sendAudio(samples: Int16Array): void;
  /** Keys the participant pressed (RFC 4733 out); resolves once they are sent. */
  sendKeys(keys: string): Promise<void>;
  /** The session ended the call: a BYE (`reason` for the log). */
  hangUp(reason: string): void;
}

/** How one SIP call is hosted. */
export interface SipHostedCallOptions {
  /** The participant hosted, its side, and the scenario it plays (if any). */
  participant: { name: string; side: Side; scenario?: Scenario };
  factory: HostedParticipantFactory;
  /** The session's audio: its TTS (and STT); the output rate is made 8 kHz. */
  audio: SessionAudioOptions;
  media: SipCallMedia;
  /**
   * The call's tools over MCP (`--tools-server`). A hosted agent's are its session's; with
   * a hosted caller, the far end is the agent under test, and its endpoint serves the
   * scenario's agent tools on the scenario's agent world, which the call then reports.
   */
  tools?: SessionToolsRegistry;
  /** Where a hosted caller's agent world is read from. */
  dataRoot?: DataRoot;
  /** Passed to the session: data root, limits, tools registry, clock... */
  session?: Omit<SessionOptions, "factory" | "participant" | "audio" | "log">;
  log?: (line: string) => void;
}

/** The call's world at its end, as `get_scenario_summary` gives it. */
export interface SipCallWorld {
  /** The hosted side's database hash; null without a world. */
  db_hash: string | null;
  actions: unknown[];
}

/** A SIP call on a hosted session. */
export class SipHostedCall {
  readonly #o: SipHostedCallOptions;
  readonly #session: Session;
  readonly #waiting = new Map<string, (m: RtviMessage) => void>();
  #nextId = 0;
  #ended = false;
  #begun = false;
  #freeing?: Promise<void>;
  #socketClosed = false;
  #speaking = false;
  #endAfterSpeech = false;
  #agentWorld?: Environment;
  #agentTools?: { url: string; token: string; close(): void };
  #finish: (world: SipCallWorld | undefined) => void = () => {};
  /** Resolves once the session is freed, with its world as the call left it. */
  readonly finished: Promise<SipCallWorld | undefined> = new Promise((resolve) => {
    this.#finish = resolve;
  });

  constructor(options: SipHostedCallOptions) {
    this.#o = options;
    const { participant } = options;
    const hostsAgent = participant.side === "agent";
    this.#session = new Session({
      send: (data) => this.#fromSession(data),
      close: (_code, reason) => {
        // Cut off (a bound passed): it reads nothing more, so nothing more is asked.
        this.#socketClosed = true;
        this.#end(reason ?? "the session closed");
      },
    }, {
      ...options.session,
      ...(hostsAgent && options.tools ? { tools: options.tools } : {}),
      factory: options.factory,
      participant: {
        name: participant.name,
        side: participant.side,
        ...(participant.scenario ? { scenario: participant.scenario.name } : {}),
      },
      audio: { ...options.audio, outputRate: SIP_AUDIO_RATE, chunkMs: 20 },
      log: (line) => options.log?.(line),
    });
  }

  /** The call's MCP endpoint, when the server serves tools (`X-Callbench-Tools`). */
  get toolsServer(): { url: string; token: string } | undefined {
    const own = this.#agentTools;
    return own ? { url: own.url, token: own.token } : this.#session.toolsServer;
  }

  /** Whether the call is over (hung up by either end). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Sets the session up and starts the call (`prepare`, then `begin`). */
  async start(): Promise<void> {
    await this.prepare();
    await this.begin();
  }

  /**
   * Sets the session up for the call (before the answer): its participant, the
   * scenario's prompt, tools and world. Rejects with the session's words when it refuses.
   */
  async prepare(): Promise<void> {
    await this.#serveAgentWorld();
    const ready = await this.#request(rtvi("client-ready", { version: "2.1.0" }));
    if (ready.type !== "bot-ready") throw new Error(`the session did not get ready: ${ready.type}`);
    const { participant } = this.#o;
    const scenario = participant.scenario;
    if (scenario) {
      const side = participant.side;
      const part = side === "agent" ? scenario.agent : scenario.user;
      await this.#handler("update_system_prompt", {
        prompt: part.prompt || (side === "agent" ? "You are the agent." : "You are the caller."),
        tools: JSON.stringify(Object.fromEntries(part.tools.map((t) => [t, {}]))),
        add_suffix: false,
        tool_domain: scenario.domain,
        scenario: scenario.name,
        side,
        // Ids minted in the world as in gold replays, so the reference calls reach gold.
        seed: WORLD_SEED,
        ...(userdataOf(scenario, side) ? { userdata: userdataOf(scenario, side) } : {}),
      });
      const source = side === "agent" ? scenario.world.db : scenario.world.user_db;
      if (source) {
        const world = "path" in source ? { db_path: source.path } : { db: source.inline };
        await this.#handler("apply_initialization", {
          domain: scenario.domain,
          shared_state_init: JSON.stringify({ ...world, today: scenario.today }),
          actions: scenario.initialization_actions.filter((a) => a.side === side),
        }).then((d) => {
          const r = d as { success?: boolean; errors?: string[] };
          if (r.success !== true) {
            throw new Error(`the scenario's world did not load: ${(r.errors ?? []).join("; ")}`);
          }
        });
      }
    }
  }

  /** The call is on (its ACK came): the hosted participant answers and speaks first. */
  async begin(): Promise<void> {
    if (this.#ended || this.#begun) return;
    this.#begun = true;
    await this.#handler("call_event", { type: "call_start", at: 0, you_speak_first: true });
  }

  /** 8 kHz mono audio the far end sent (decoded RTP, in order). */
  hear(samples: Int16Array): void {
    if (this.#ended || !this.#begun || samples.length === 0) return;
    const message = rawAudioMessage({
      pcm: pcm16ToBytes(samples),
      sampleRate: SIP_AUDIO_RATE,
      numChannels: 1,
    });
    this.#session.receive(writeFrame(message, "json") as string);
  }

  /** Keys the far end pressed (RFC 4733 events, one per key). */
  keys(keys: string): void {
    if (this.#ended || !this.#begun) return;
    this.#session.receive(writeFrame(rtvi("dtmf", { buttons: [...keys] }), "json") as string);
  }

  /** The far end hung up (its BYE): the session's call ends and the session is freed. */
  async farEndHungUp(reason = "the far end hung up"): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#o.log?.(reason);
    await this.#free();
  }

  /** Frees the session without a BYE (server shutdown sends its own). */
  async close(): Promise<void> {
    this.#ended = true;
    await this.#free();
  }

  /**
   * A hosted caller's far end is the agent under test: with a tools registry, its
   * endpoint runs the scenario's agent tools on the scenario's own agent world.
   */
  async #serveAgentWorld(): Promise<void> {
    const { participant, tools, dataRoot } = this.#o;
    const scenario = participant.scenario;
    if (participant.side !== "user" || !tools || !scenario || !dataRoot) return;
    const { env } = await openEnvironment(dataRoot, scenario, WORLD_SEED);
    const specs = toolSpecs(env.domain, "agent", scenario.agent.tools);
    const offered = new Set(specs.map((t) => t.name));
    this.#agentWorld = env;
    this.#agentTools = tools.register({
      tools: specs,
      callTool: (name, args) => Promise.resolve(this.#runAgentTool(env, offered, name, args)),
    });
  }

  #runAgentTool(
    env: Environment,
    offered: ReadonlySet<string>,
    name: string,
    args: unknown,
  ): ToolCallReply {
    if (this.#ended) {
      return {
        ok: false,
        result: { status: "error", error_type: "call_ended", message: "The call has ended." },
      };
    }
    if (!offered.has(name)) {
      return {
        ok: false,
        result: {
          status: "error",
          error_type: "unknown_tool",
          message: `There is no tool named '${name}'. Use one of the available tools.`,
          available_tools: [...offered].sort(),
        },
      };
    }
    const r = env.call("agent", name, args);
    return { ok: r.ok, result: deliverableResult(r.result) };
  }

  /** Reads the world as the call left it, then frees the session (once). */
  async #free(): Promise<void> {
    if (this.#freeing) return await this.#freeing;
    this.#freeing = (async () => {
      this.#agentTools?.close();
      let world: SipCallWorld | undefined;
      const agentWorld = this.#agentWorld;
      if (agentWorld) {
        world = { db_hash: agentWorld.hashes().db_sha256, actions: [...agentWorld.actions] };
      } else {
        // A session that is cutting its socket off sends its last words, then closes it.
        await Promise.resolve();
      }
      if (!agentWorld && !this.#socketClosed) {
        try {
          const d = await this.#withTimeout(
            this.#handler("get_scenario_summary", { include_db: false }),
          );
          const summary = d as Partial<SipCallWorld> | undefined;
          world = { db_hash: summary?.db_hash ?? null, actions: summary?.actions ?? [] };
        } catch { /* no summary: none reported */ }
      }
      await this.#session.closed();
      this.#finish(world);
    })();
    await this.#freeing;
  }

  // ---- the session's side ---------------------------------------------------------

  #fromSession(data: string | Uint8Array): void {
    if (typeof data !== "string") return;
    let message: RtviMessage;
    try {
      message = JSON.parse(data) as RtviMessage;
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const waiter = this.#waiting.get(message.id);
      if (waiter) {
        this.#waiting.delete(message.id);
        return waiter(message);
      }
    }
    switch (message.type) {
      case "bot-started-speaking":
        this.#speaking = true;
        return;
      case "bot-stopped-speaking":
        this.#speaking = false;
        if (this.#endAfterSpeech) this.#end("end_conversation");
        return;
      case "bot-tts-audio": {
        const audio = decodeBotTtsAudio(message.data);
        if (!audio.ok || audio.value.sampleRate !== SIP_AUDIO_RATE) return;
        const samples = pcm16FromBytes(audio.value.pcm);
        if (samples.ok && !this.#ended) this.#o.media.sendAudio(samples.samples);
        return;
      }
      case "llm-function-call-in-progress":
        return void this.#toolCall(message.data as ToolCallData);
      case "server-message": {
        const d = (message.data ?? {}) as { type?: string; text?: string; reason?: string };
        if (d.type === "end") return this.#end(d.reason ?? "hangup");
        if (typeof d.text === "string" && /<exit>/.test(d.text)) return this.#end("exit");
        return;
      }
      case "error": {
        const d = (message.data ?? {}) as { error?: string; fatal?: boolean };
        this.#o.log?.(`session error: ${d.error ?? ""}`);
        if (d.fatal) this.#end(d.error ?? "fatal error");
        return;
      }
    }
  }

  /**
   * A tool call the session left to its client: keys go out as telephone events; any
   * other tool (a scenario without a world) has nothing to run on.
   */
  async #toolCall(data: ToolCallData): Promise<void> {
    let result: unknown;
    if (data.function_name === "send_dtmf") {
      const keys = String((data.arguments as { keys?: unknown } | undefined)?.keys ?? "");
      await this.#o.media.sendKeys(keys);
      result = { status: "success", message: `Pressed ${keys}` };
    } else if (data.function_name === "end_conversation") {
      // Without a world the tool ends the call, once what was said has been heard.
      result = { status: "success" };
      if (this.#speaking) this.#endAfterSpeech = true;
      else {this.#o.session?.clock?.timer(0, () => this.#end("end_conversation")) ??
          setTimeout(() => this.#end("end_conversation"), 0);}
    } else {
      result = {
        status: "error",
        error_type: "no_world",
        message: `No world on this call runs ${data.function_name}.`,
      };
    }
    this.#session.receive(
      writeFrame(
        rtvi("llm-function-call-result", {
          function_name: data.function_name,
          tool_call_id: data.tool_call_id,
          arguments: data.arguments ?? {},
          result,
        }),
        "json",
      ) as string,
    );
  }

  #end(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#o.media.hangUp(reason);
    void this.#free();
  }

  /** `p`, or a rejection after a second on the call's clock. */
  #withTimeout<T>(p: Promise<T>): Promise<T> {
    const clock = this.#o.session?.clock;
    return new Promise<T>((resolve, reject) => {
      const fail = () => reject(new Error("the session did not answer"));
      const cancel = clock
        ? clock.timer(1000, fail)
        : ((t) => () => clearTimeout(t))(setTimeout(fail, 1000));
      p.then((v) => {
        cancel();
        resolve(v);
      }, (e) => {
        cancel();
        reject(e);
      });
    });
  }

  /** Sends a request to the session and waits for the reply with its id. */
  #request(message: RtviMessage): Promise<RtviMessage> {
    const id = `sip_${++this.#nextId}`;
    message.id = id;
    return new Promise<RtviMessage>((resolve) => {
      this.#waiting.set(id, resolve);
      this.#session.receive(writeFrame(message, "json") as string);
    });
  }

  /** A `client-message` handler's reply data, or its refusal as an error. */
  async #handler(t: string, d: unknown): Promise<unknown> {
    const reply = await this.#request(rtvi("client-message", { t, d }));
    if (reply.type === "error-response") {
      throw new Error(`${t} refused: ${(reply.data as { error?: string })?.error ?? ""}`);
    }
    return (reply.data as { d?: unknown } | undefined)?.d;
  }
}

interface ToolCallData {
  tool_call_id: string;
  function_name: string;
  arguments?: unknown;
}

/** The userdata the side's participant plays (the navigator learns its task from it). */
function userdataOf(scenario: Scenario, side: Side): CallSetup["userdata"] | undefined {
  if (side !== "agent") return undefined;
  const data = scenario.agent.userdata;
  return typeof data === "object" && data !== null && !Array.isArray(data)
    ? data as Record<string, unknown>
    : undefined;
}
