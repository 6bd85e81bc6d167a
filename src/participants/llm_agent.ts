/**
 * The LLM agent: an OpenAI-compatible chat model answering the call. Its system prompt
 * is the scenario's agent prompt (plus any `userdata`), its tools the domain's; the
 * harness runs every tool call, including `end_conversation`, after which it ends the
 * call. A `send_dtmf` call presses keys on the line.
 *
 * @example
 * ```ts
 * const agent = new LlmAgent({ baseUrl: "http://127.0.0.1:8000/v1", model: "m", temperature: 0 });
 * ```
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../bridge/call.ts";
import type { ChatMessage } from "../llm/openai.ts";
import { LlmConversation, type LlmParticipantOptions, sendDtmfTool } from "./_llm_conversation.ts";

export type { LlmParticipantOptions } from "./_llm_conversation.ts";

export class LlmAgent implements Participant {
  readonly info: ParticipantInfo;
  readonly #conversation: LlmConversation;

  constructor(options: LlmParticipantOptions) {
    this.#conversation = new LlmConversation(options, {
      errorKind: "model_error",
      role: "agent",
      localTools: { send_dtmf: sendDtmfTool },
      finalTools: ["end_conversation", "EndConversationTool"],
    });
    this.info = this.#conversation.info;
  }

  /** The conversation so far, system prompt first (for the record and for tests). */
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
