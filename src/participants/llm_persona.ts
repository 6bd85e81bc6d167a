/**
 * An LLM that speaks for a flow's people (screeners and persona nodes): given the
 * node's instructions, the scenario's `userdata` and the call so far, it says the next
 * line. The agent under test's words are the model's "user" turns; the far end's own
 * earlier lines are its "assistant" turns.
 *
 * @module
 */
import { ParticipantError, type Usage } from "../bridge/call.ts";
import type { PersonaSpeaker } from "../flow/persona.ts";
import type { ChatCompleter, ChatMessage, SamplingSettings } from "../llm/openai.ts";
import { OPENING_NOTE } from "./_llm_conversation.ts";

export interface LlmPersonaOptions {
  /** The client's model unless given. */
  model?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Stream replies. Default false (only the whole line is used). */
  stream?: boolean;
  /** Told the tokens of every model call. */
  onUsage?: (usage: Usage) => void;
}

/** How a persona should talk, after the node's own instructions. */
const PHONE_STYLE = "You are on a phone call. Reply with only the words you say next: " +
  "short spoken sentences, no Markdown, no lists, no stage directions.";

/** Asks for another line when the agent has said nothing since the persona spoke. */
const SILENCE_NOTE = "[The other party says nothing. Go on.]";

/**
 * A `PersonaSpeaker` over a chat model. A failed model call rejects with a
 * `ParticipantError` "user_error".
 */
export function llmPersonaSpeaker(
  client: ChatCompleter,
  options: LlmPersonaOptions = {},
): PersonaSpeaker {
  const sampling: SamplingSettings = {};
  if (options.temperature !== undefined) sampling.temperature = options.temperature;
  if (options.topP !== undefined) sampling.top_p = options.topP;
  if (options.maxTokens !== undefined) sampling.max_tokens = options.maxTokens;
  if (options.seed !== undefined) sampling.seed = options.seed;
  return {
    async reply({ instructions, userdata, language, history }) {
      const known = userdata && Object.keys(userdata).length > 0
        ? `\n\n# What you know\n${JSON.stringify(userdata, null, 2)}`
        : "";
      const speak = language ? ` Speak only the language ${language} (BCP 47).` : "";
      const messages: ChatMessage[] = [
        { role: "system", content: `${instructions}${known}\n\n${PHONE_STYLE}${speak}` },
      ];
      for (const turn of history) {
        const role = turn.speaker === "agent" ? "user" : "assistant";
        const last = messages.at(-1)!;
        // Consecutive lines of one speaker make one turn, so roles alternate.
        if (last.role === role) last.content = `${last.content ?? ""}\n${turn.text}`;
        else messages.push({ role, content: turn.text });
      }
      if (messages.at(-1)!.role !== "user") {
        messages.push({
          role: "user",
          content: history.length === 0 ? OPENING_NOTE : SILENCE_NOTE,
        });
      }
      try {
        const result = await client.complete({
          ...sampling,
          messages,
          stream: options.stream ?? false,
          ...(options.model ? { model: options.model } : {}),
        });
        options.onUsage?.(result.usage ?? { prompt_tokens: 0, completion_tokens: 0 });
        return result.content.trim();
      } catch (e) {
        const reason = e instanceof Error ? e.message : String(e);
        throw new ParticipantError("user_error", `The persona model failed: ${reason}`);
      }
    },
  };
}
