/**
 * How the built-in oracle asks the caller to act on their phone, and how the
 * scripted caller recognises it: one fixed sentence that carries the tool and its
 * arguments, so dual-control scenarios replay deterministically over any wire.
 *
 * @module
 */

/** `On your phone, please run toggle airplane mode.` (arguments as JSON when any). */
export function formatPhoneStep(tool: string, args: Record<string, unknown> = {}): string {
  const words = tool.replaceAll("_", " ");
  const withArgs = Object.keys(args).length > 0 ? ` with ${JSON.stringify(args)}` : "";
  return `On your phone, please run ${words}${withArgs}.`;
}

const PHONE_STEP = /On your phone, please run ([a-z0-9 ]+?)(?: with (\{.*\}))?\.\s*$/;

/** The tool and arguments of a phone-step sentence, if `text` is one. */
export function parsePhoneStep(
  text: string,
): { tool: string; args: Record<string, unknown> } | undefined {
  const m = PHONE_STEP.exec(text);
  if (!m) return undefined;
  let args: Record<string, unknown> = {};
  if (m[2]) {
    try {
      const parsed = JSON.parse(m[2]);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) args = parsed;
    } catch {
      return undefined;
    }
  }
  return { tool: m[1]!.trim().replaceAll(" ", "_"), args };
}
