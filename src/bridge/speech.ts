/**
 * How long an utterance takes to say on a simulated call: about 16 characters a
 * second (150 words a minute), never under 300 ms. Deterministic, so a flow's
 * timings reproduce exactly.
 */
export function speechDurationMs(text: string): number {
  return Math.max(300, Math.round(text.length * 60));
}

/** The words of `text` spoken in the first `elapsedMs` (a cut-off utterance). */
export function spokenPrefix(text: string, elapsedMs: number): string {
  const total = speechDurationMs(text);
  if (elapsedMs >= total) return text;
  const chars = Math.floor((Math.max(0, elapsedMs) / total) * text.length);
  const cut = text.slice(0, chars);
  const lastSpace = cut.lastIndexOf(" ");
  return lastSpace > 0 ? cut.slice(0, lastSpace) : "";
}
