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
import {
  LlmConversation,
  LlmParticipant,
  type LlmParticipantOptions,
  sendDtmfTool,
} from "./_llm_conversation.ts";

export type { LlmParticipantOptions } from "./_llm_conversation.ts";

export class LlmAgent extends LlmParticipant {
  constructor(options: LlmParticipantOptions) {
    super(
      new LlmConversation(options, {
        errorKind: "model_error",
        role: "agent",
        localTools: { send_dtmf: sendDtmfTool },
        finalTools: ["end_conversation", "EndConversationTool"],
      }),
    );
  }
}
