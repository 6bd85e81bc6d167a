/**
 * The LLM caller: an OpenAI-compatible chat model playing the scenario's persona. It
 * waits for the agent's greeting unless it speaks first, answers each utterance, may
 * use the phone tools it is given (telecom), and hangs up with its own `end_call` tool,
 * which the reference's simulated caller lacks.
 *
 * @module
 */
import type { ToolSpec } from "../bridge/call.ts";
import { z } from "zod";
import { argumentsJsonSchema } from "../schema/json_schema.ts";
import {
  LlmConversation,
  LlmParticipant,
  type LlmParticipantOptions,
  type LocalTool,
  sendDtmfTool,
} from "./_llm_conversation.ts";

export type { LlmParticipantOptions } from "./_llm_conversation.ts";

/** The caller's way to hang up. */
export const END_CALL_TOOL: ToolSpec = {
  name: "end_call",
  description:
    "Hang up the phone. Use it once your task is done or cannot be done, after saying goodbye.",
  parameters: argumentsJsonSchema(z.strictObject({})),
};

const endCall: LocalTool = {
  spec: END_CALL_TOOL,
  run(_args, line) {
    line.hangUp("user_end_call");
    return { result: { status: "success", message: "You hung up." }, stop: true };
  },
};

export class LlmUser extends LlmParticipant {
  constructor(options: LlmParticipantOptions) {
    super(
      new LlmConversation(options, {
        errorKind: "user_error",
        role: "user simulator",
        localTools: { end_call: endCall, send_dtmf: sendDtmfTool },
      }),
    );
  }
}
