/**
 * A session's context history, as `get_context_history` returns it: the system
 * prompt, then the turns and tool results, within a byte budget (UTF-8 JSON) and an
 * entry cap. Entries the client sent are checked against the budget first; the
 * session's own make room by dropping the oldest turns.
 *
 * @module
 */

/** Entries kept (oldest turns dropped first). */
export const MAX_HISTORY_ENTRIES = 2_000;
/** Default byte budget of one session's context history. */
export const DEFAULT_MAX_HISTORY_BYTES = 8 * 2 ** 20;

const utf8 = new TextEncoder();

/** Size of `value` as UTF-8 JSON. */
export function jsonBytes(value: unknown): number {
  return utf8.encode(JSON.stringify(value) ?? "null").byteLength;
}

/** The history of one conversation. */
export class ContextHistory {
  readonly #budget: number;
  #entries: Record<string, unknown>[] = [];
  /** Size of each entry, in the same order. */
  #sizes: number[] = [];
  #bytes = 0;
  /** The last reply, until the conversation changes. */
  #reply?: { context: string };

  constructor(budget = DEFAULT_MAX_HISTORY_BYTES) {
    this.#budget = budget;
  }

  /** A new conversation: just the system prompt. */
  restart(prompt: string): void {
    const entry = { role: "system", content: prompt };
    this.#reply = undefined;
    this.#entries = [entry];
    this.#sizes = [jsonBytes(entry)];
    this.#bytes = this.#sizes[0]!;
  }

  /** Whether a client's entry of `bytes` fits the budget. */
  hasRoom(bytes: number): boolean {
    return this.#bytes + bytes <= this.#budget;
  }

  /** Why an entry of `bytes` is refused. */
  fullMessage(bytes: number): string {
    return `the conversation would hold ${this.#bytes + bytes} bytes, over this ` +
      `session's history budget of ${this.#budget}; reset or update_system_prompt ` +
      "starts a new one";
  }

  /**
   * Appends an entry. One too large for the budget on its own is kept as a marker;
   * the oldest turns after the system prompt go until the rest fits.
   */
  remember(entry: Record<string, unknown>, bytes = jsonBytes(entry)): void {
    if (bytes > this.#budget / 2) {
      entry = { role: entry.role, content: `[${bytes} bytes omitted: over the history budget]` };
      bytes = jsonBytes(entry);
    }
    this.#reply = undefined;
    this.#entries.push(entry);
    this.#sizes.push(bytes);
    this.#bytes += bytes;
    while (
      this.#entries.length > 2 &&
      (this.#entries.length > MAX_HISTORY_ENTRIES || this.#bytes > this.#budget)
    ) {
      this.#entries.splice(1, 1);
      this.#bytes -= this.#sizes.splice(1, 1)[0]!;
    }
  }

  /**
   * The `get_context_history` reply: a JSON string literal of the JSON list, since the
   * reference bridge evaluates the reply as a Python literal, gets a string, then
   * parses it as JSON.
   */
  reply(): { context: string } {
    return this.#reply ??= { context: JSON.stringify(JSON.stringify(this.#entries)) };
  }
}
