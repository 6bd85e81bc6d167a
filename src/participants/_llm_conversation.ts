/**
 * What the LLM agent and the LLM caller share: one chat conversation driven by call
 * events. The other end's words become user messages; the model's text is spoken; its
 * tool calls go to the harness (or to a tool the participant handles itself) and the
 * results go back to the model until it answers in words. Events that arrive while the
 * model is busy wait, and are answered together afterwards.
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
  type ToolSpec,
} from "../bridge/call.ts";
import { DTMF_KEYS_TEXT, isDtmfKeys } from "../dtmf/keys.ts";
import {
  type ChatCompleter,
  type ChatMessage,
  type ChatResult,
  type ChatToolCall,
  OpenAiClient,
  type SamplingSettings,
} from "../llm/openai.ts";

/** How to build an LLM participant: a client, or where to find the model. */
export interface LlmParticipantOptions {
  /** The model client; else one is made from `baseUrl`, `model` and `apiKey`. */
  client?: ChatCompleter;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Stream replies (for a real time to first token). Default true. */
  stream?: boolean;
  /** Most tool rounds in answer to one turn of the other end. Default 10. */
  maxToolRounds?: number;
}

/** A tool the participant runs itself instead of sending it to the harness. */
export interface LocalTool {
  /** Offered to the model when set; else only handled if the harness offers the tool. */
  spec?: ToolSpec;
  /** `stop`: the participant's turn (and its part in the call) is over. */
  run(args: unknown, line: CallLine): { result: unknown; stop?: boolean };
}

export interface ConversationOptions {
  /** What the trial ends with when the model fails. */
  errorKind: "model_error" | "user_error";
  /** Who this is, for error messages. */
  role: string;
  localTools: Record<string, LocalTool>;
  /** Harness tools after which the harness ends the call: no more model calls. */
  finalTools?: readonly string[];
}

/** The note that asks the model to open the call. */
export const OPENING_NOTE = "[The call is connected and the line is quiet. You speak first.]";

/** One participant's conversation with its model. */
export class LlmConversation {
  readonly info: ParticipantInfo;
  readonly #client: ChatCompleter;
  readonly #sampling: SamplingSettings;
  readonly #stream: boolean;
  readonly #maxToolRounds: number;
  readonly #options: ConversationOptions;
  readonly #abort = new AbortController();
  #line?: CallLine;
  #messages: ChatMessage[] = [];
  #tools: ToolSpec[] = [];
  #pending: CallEvent[] = [];
  #running?: Promise<void>;
  #ended = false;

  constructor(participant: LlmParticipantOptions, options: ConversationOptions) {
    this.#client = participant.client ?? clientFrom(participant);
    this.#sampling = withoutUndefined({
      temperature: participant.temperature,
      top_p: participant.topP,
      max_tokens: participant.maxTokens,
      seed: participant.seed,
    });
    this.#stream = participant.stream ?? true;
    this.#maxToolRounds = participant.maxToolRounds ?? 10;
    this.#options = options;
    this.info = {
      kind: "llm",
      model: this.#client.model,
      settings: { ...this.#sampling, stream: this.#stream },
    };
  }

  /** The conversation so far (system prompt first). */
  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }

  start(line: CallLine, setup: CallSetup): void {
    this.#line = line;
    const userdata = setup.userdata && Object.keys(setup.userdata).length > 0
      ? `\n\n# Call data\n${JSON.stringify(setup.userdata, null, 2)}`
      : "";
    this.#messages = [{ role: "system", content: setup.prompt + userdata }];
    const offered = new Set(setup.tools.map((t) => t.name));
    this.#tools = [
      ...setup.tools,
      ...Object.entries(this.#options.localTools)
        .filter(([name, tool]) => tool.spec && !offered.has(name))
        .map(([, tool]) => tool.spec!),
    ];
  }

  onEvent(event: CallEvent): void {
    if (this.#ended || !this.#line) return;
    if (event.type === "hangup") {
      this.#stop();
      return;
    }
    this.#pending.push(event);
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
  }

  async close(): Promise<void> {
    this.#stop();
    await this.#running;
  }

  #stop(): void {
    this.#ended = true;
    this.#pending = [];
    this.#abort.abort();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0 && !this.#ended) {
      const notes = this.#pending.splice(0).map(noteOf).filter((n) => n !== undefined);
      if (notes.length === 0) continue;
      this.#appendUser(notes.join("\n"));
      try {
        await this.#answer();
      } catch (e) {
        // After a hangup the request was cancelled on purpose: nothing to report.
        if (this.#ended) return;
        this.#ended = true;
        const reason = e instanceof Error ? e.message : String(e);
        this.#line!.fail(
          new ParticipantError(
            this.#options.errorKind,
            `The ${this.#options.role} model failed: ${reason}`,
          ),
        );
      }
    }
  }

  /**
   * Runs the model until it answers in words. After `maxToolRounds` rounds of tool
   * calls it is asked to answer without tools, and any tool call it still makes is
   * dropped.
   */
  async #answer(): Promise<void> {
    const line = this.#line!;
    for (let round = 0;; round++) {
      const lastRound = round >= this.#maxToolRounds;
      const reply = await this.#complete(lastRound);
      if (this.#ended) return;
      const toolCalls = lastRound ? [] : reply.toolCalls;
      if (lastRound && reply.toolCalls.length > 0) {
        line.trace({ type: "llm_tool_rounds_exceeded", rounds: this.#maxToolRounds });
      }
      const text = reply.content.trim();
      if (toolCalls.length > 0) this.#messages.push(reply.message);
      else if (text !== "") this.#messages.push({ role: "assistant", content: reply.content });
      if (text !== "") line.say(text, { ttftMs: reply.ttftMs });
      if (toolCalls.length === 0) return;
      let stop = false;
      for (const call of toolCalls) {
        const outcome = await this.#runTool(call);
        if (this.#ended) return;
        this.#messages.push({ role: "tool", tool_call_id: call.id, content: outcome.content });
        stop ||= outcome.stop;
      }
      if (stop) return;
    }
  }

  async #complete(withoutTools: boolean): Promise<ChatResult> {
    const reply = await this.#client.complete({
      ...this.#sampling,
      messages: this.#messages,
      ...(this.#tools.length > 0
        ? { tools: this.#tools, ...(withoutTools ? { tool_choice: "none" as const } : {}) }
        : {}),
      stream: this.#stream,
      signal: this.#abort.signal,
    });
    // Counted even when the server reports no tokens: the number of model calls matters.
    this.#line!.usage(reply.usage ?? { prompt_tokens: 0, completion_tokens: 0 });
    if (reply.attempts > 1) this.#line!.trace({ type: "llm_retried", attempts: reply.attempts });
    return reply;
  }

  async #runTool(call: ChatToolCall): Promise<{ content: string; stop: boolean }> {
    const line = this.#line!;
    const name = call.function.name;
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      return {
        content: JSON.stringify({
          status: "error",
          error_type: "invalid_arguments",
          message: `The arguments of ${name} are not valid JSON: ${call.function.arguments}`,
        }),
        stop: false,
      };
    }
    const local = this.#options.localTools[name];
    if (local) {
      const { result, stop } = local.run(args, line);
      return { content: toolContent(result), stop: stop ?? false };
    }
    let result: unknown;
    try {
      result = (await line.callTool(name, args)).result;
    } catch (e) {
      result = { status: "error", message: e instanceof Error ? e.message : String(e) };
    }
    return {
      content: toolContent(result),
      stop: this.#options.finalTools?.includes(name) ?? false,
    };
  }

  /** Adds to the last user message if there is one, so roles keep alternating. */
  #appendUser(text: string): void {
    const last = this.#messages.at(-1);
    if (last?.role === "user") last.content += `\n${text}`;
    else this.#messages.push({ role: "user", content: text });
  }
}

/** Presses keys on the line: the `send_dtmf` tool, handled by the participant. */
export const sendDtmfTool: LocalTool = {
  run(args, line) {
    const keys = (args as { keys?: unknown } | null)?.keys;
    if (!isDtmfKeys(keys)) {
      return {
        result: {
          status: "error",
          error_type: "validation_error",
          message: `keys must be a string of ${DTMF_KEYS_TEXT}`,
        },
      };
    }
    line.press(keys);
    return { result: { status: "success", message: `Pressed ${keys}.` } };
  },
};

/** What the model is told of an event, if anything. */
function noteOf(event: CallEvent): string | undefined {
  switch (event.type) {
    case "call_start":
      return event.you_speak_first ? OPENING_NOTE : undefined;
    case "speech": {
      const text = event.text.trim();
      if (text === "") {
        return event.interrupted ? "[The other party started to speak and stopped.]" : undefined;
      }
      const tag = event.voice ? `[${event.voice}] ` : "";
      return tag + text + (event.interrupted ? " [cut off]" : "");
    }
    case "dtmf":
      return `[The other party pressed the keys ${event.keys}]`;
    case "beep":
      return "[A beep sounded]";
    default:
      return undefined;
  }
}

function toolContent(result: unknown): string {
  return typeof result === "string" ? result : JSON.stringify(result) ?? "null";
}

function clientFrom(options: LlmParticipantOptions): ChatCompleter {
  if (!options.baseUrl || !options.model) {
    throw new Error("An LLM participant needs a client, or a base URL and a model");
  }
  return new OpenAiClient({
    baseUrl: options.baseUrl,
    model: options.model,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
}

function withoutUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A participant that is its conversation with a model (the LLM agent and caller). */
export class LlmParticipant implements Participant {
  readonly info: ParticipantInfo;
  readonly #conversation: LlmConversation;

  protected constructor(conversation: LlmConversation) {
    this.#conversation = conversation;
    this.info = conversation.info;
  }

  /** The conversation so far, its system or persona prompt first. */
  get messages(): readonly ChatMessage[] {
    return this.#conversation.messages;
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#conversation.start(line, setup);
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    this.#conversation.onEvent(event);
  }

  close(): Promise<void> {
    return this.#conversation.close();
  }
}
