/**
 * Harness tools every domain shares.
 *
 * @module
 */
import { DTMF_KEYS } from "../dtmf/keys.ts";
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
  effect: "end_call",
  description:
    "End the call. Only after the caller has confirmed they need nothing else and goodbyes have been exchanged.",
  args: z.object({}).strict(),
  run: () => ({
    ok: true,
    result: { success: true, message: "Exit message sent." },
    exit: EXIT_TASK_FINISHED,
  }),
};

/** The keys of a phone keypad, one or more (`send_dtmf`). */

/**
 * Presses keys on the phone keypad. The bridge carries it out on the line (the keys
 * reach the other end); it touches no world, so no domain lists it.
 */
export const sendDtmfTool: ToolDef<{ keys: string }> = {
  name: "send_dtmf",
  side: "agent",
  kind: "system",
  effect: "dtmf",
  description: "Press keys on the phone keypad (DTMF), for example to choose a menu option.",
  args: z.object({
    keys: z.string().regex(DTMF_KEYS).describe("Keys to press, in order"),
  }).strict(),
  run: ({ keys }) => ({ ok: true, result: { status: "success", message: `Pressed ${keys}.` } }),
};

/** Tools of the line itself, which every call knows besides its world's. */
export const LINE_TOOLS: readonly ToolDef[] = [sendDtmfTool];

/** Whether a text is the reference's `<exit>...</exit>` end-of-call marker. */
export function isExitText(text: string): boolean {
  const t = text.trim();
  return t.startsWith("<exit>") && t.endsWith("</exit>");
}
