/**
 * Bounds on what one trial record holds, so an agent that talks or returns megabytes
 * cannot make a record that takes `score` minutes (or a line over the JSONL cap).
 *
 * - A turn's text keeps at most {@link MAX_TURN_CHARS} characters.
 * - A tool call's `arguments` and `result` keep at most {@link MAX_TOOL_VALUE_CHARS}
 *   characters of JSON each; a longer one is replaced by the start of its JSON text.
 * - Over the whole record, turns and tool values share {@link MAX_RECORD_TEXT_CHARS};
 *   once it is spent each further one keeps {@link MIN_KEPT_CHARS}.
 *
 * - An error's message keeps at most {@link MAX_MESSAGE_CHARS} characters.
 *
 * What is cut is never dropped silently: the kept text ends with a marker
 * `… [truncated N chars]` and the turn or tool call carries `truncated_chars: N`.
 * A value that cannot be serialised at all is kept as a marker naming why.
 *
 * @module
 */
import type { TrialRecord } from "./trial_record.ts";
import { clip, MAX_MESSAGE_CHARS } from "../problem/quote.ts";

/** Characters kept of one turn's text. */
export const MAX_TURN_CHARS = 32 * 1024;
/** Characters of JSON kept of one tool call's arguments, and of its result. */
export const MAX_TOOL_VALUE_CHARS = 64 * 1024;
/** Characters of turns and tool values kept over one record. */
export const MAX_RECORD_TEXT_CHARS = 8 * 1024 * 1024;
/** Characters each turn or tool value keeps once the record's budget is spent. */
export const MIN_KEPT_CHARS = 1024;

/** The marker that ends a truncated text. */
export function truncationMarker(cut: number): string {
  return ` … [truncated ${cut} chars]`;
}

/** The record within the bounds above (the same object when nothing is over). */
export function boundRecord(record: TrialRecord): TrialRecord {
  let budget = MAX_RECORD_TEXT_CHARS;
  const allowance = (cap: number) => Math.min(cap, Math.max(MIN_KEPT_CHARS, budget));
  let changed = false;

  const turns = record.turns.map((t) => {
    const keep = allowance(MAX_TURN_CHARS);
    budget -= Math.min(t.text.length, keep);
    if (t.text.length <= keep) return t;
    changed = true;
    const cut = t.text.length - keep;
    return { ...t, text: t.text.slice(0, keep) + truncationMarker(cut), truncated_chars: cut };
  });

  const toolCalls = record.tool_calls.map((c) => {
    let cutTotal = 0;
    const bound = (value: unknown): unknown => {
      let json: string;
      try {
        json = JSON.stringify(value) ?? "null";
      } catch (e) {
        cutTotal += 1;
        return `[not serialisable: ${e instanceof Error ? e.message : String(e)}]`;
      }
      const keep = allowance(MAX_TOOL_VALUE_CHARS);
      budget -= Math.min(json.length, keep);
      if (json.length <= keep) return value;
      const cut = json.length - keep;
      cutTotal += cut;
      return json.slice(0, keep) + truncationMarker(cut);
    };
    const args = bound(c.arguments);
    const result = bound(c.result);
    if (cutTotal === 0) return c;
    changed = true;
    return {
      ...c,
      arguments: args,
      result,
      truncated_chars: (c.truncated_chars ?? 0) + cutTotal,
    };
  });

  // An error's message may quote what the agent or the user supplied.
  const error = record.error && record.error.message.length > MAX_MESSAGE_CHARS
    ? { ...record.error, message: clip(record.error.message) }
    : record.error;
  if (error !== record.error) changed = true;
  return changed
    ? { ...record, turns, tool_calls: toolCalls, ...(error ? { error } : {}) }
    : record;
}
