/**
 * Harness tools every domain shares.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef } from "./domain.ts";

/** The reference's exit text for a finished task. */
export const EXIT_TASK_FINISHED = "<exit>The task is finished.</exit>";
/** The reference's exit text after a transfer to a human. */
export const EXIT_TRANSFER = "<exit>Transfer complete.</exit>";

/** Ends the call once its result is delivered. */
export const endConversationTool: ToolDef<Record<string, never>> = {
  name: "end_conversation",
  aliases: ["EndConversationTool"],
  side: "agent",
  kind: "system",
  description:
    "End the call. Only after the caller has confirmed they need nothing else and goodbyes have been exchanged.",
  args: z.object({}).strict(),
  run: () => ({
    ok: true,
    result: { success: true, message: "Exit message sent." },
    exit: EXIT_TASK_FINISHED,
  }),
};

/** Whether a text is the reference's `<exit>...</exit>` end-of-call marker. */
export function isExitText(text: string): boolean {
  const t = text.trim();
  return t.startsWith("<exit>") && t.endsWith("</exit>");
}
