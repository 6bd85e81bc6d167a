/**
 * The gold conversations of the later eva release
 * (`eva_airline_traces/airline_dataset.json`): each record's tool calls with their
 * recorded responses. Names and phones there are placeholders (`<LAST_NAME>` ...);
 * they are filled from the record's English culture overrides, which hold the
 * values of the scenario worlds.
 *
 * @module
 */
import { z } from "zod";

export const TRACE_FILE = "eva_airline_traces/airline_dataset.json";

const Person = z.looseObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  phone: z.string().optional(),
});

const TraceEvent = z.looseObject({
  event_type: z.string(),
  tool_name: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  response: z.unknown().optional(),
});

export const TraceRecordSchema = z.looseObject({
  id: z.string(),
  ground_truth: z.looseObject({
    expected_trace: z.looseObject({ trace: z.array(TraceEvent) }),
  }),
  culture_overrides: z.record(z.string(), Person).optional(),
  romanized_culture_overrides: z.record(z.string(), Person).optional(),
});
export type TraceRecord = z.infer<typeof TraceRecordSchema>;

/** One gold tool call and the response the trace recorded for it. */
export interface GoldStep {
  name: string;
  arguments: Record<string, unknown>;
  /** The recorded response, placeholders filled. */
  response: unknown;
  /** The recorded response as stored, placeholders kept (for matching templated text). */
  rawResponse: unknown;
}

/** The placeholder values of a record (English). */
export function placeholderValues(record: TraceRecord): Record<string, string> {
  const en = record.culture_overrides?.en ?? {};
  const romanized = record.romanized_culture_overrides?.en ?? en;
  const values: Record<string, string | undefined> = {
    FIRST_NAME: en.first_name,
    LAST_NAME: en.last_name,
    FIRST_NAME_ROMANIZED: romanized.first_name ?? en.first_name,
    LAST_NAME_ROMANIZED: romanized.last_name ?? en.last_name,
    PHONE: en.phone,
  };
  return Object.fromEntries(
    Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

const PLACEHOLDER = /<(FIRST_NAME|LAST_NAME|FIRST_NAME_ROMANIZED|LAST_NAME_ROMANIZED|PHONE)>/g;

/** Whether a string holds a trace placeholder. */
export function hasPlaceholder(s: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.test(s);
}

/** A JSON value with every known placeholder replaced (unknown ones stay). */
export function fillPlaceholders(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === "string") {
    return value.replace(PLACEHOLDER, (m, key: string) => values[key] ?? m);
  }
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, values)]),
    );
  }
  return value;
}

/**
 * A regular expression matching what a templated trace string stands for: the
 * placeholders as any text, case-insensitive (the traces capitalise names inside
 * e-mail addresses that the worlds keep in lower case).
 */
export function templatePattern(template: string): RegExp {
  const parts = template.split(PLACEHOLDER);
  // split with a capture group alternates literal text and placeholder names.
  const re = parts.map((p, i) => i % 2 === 1 ? ".+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("");
  return new RegExp(`^${re}$`, "is");
}

/** The gold tool calls of a trace record, in order, with their responses. */
export function goldSteps(record: TraceRecord): GoldStep[] {
  const values = placeholderValues(record);
  const events = record.ground_truth.expected_trace.trace;
  const steps: GoldStep[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.event_type !== "tool_call" || !e.tool_name) continue;
    const next = events[i + 1];
    const raw = next?.event_type === "tool_response" ? next.response : undefined;
    steps.push({
      name: e.tool_name,
      arguments: fillPlaceholders(e.params ?? {}, values) as Record<string, unknown>,
      response: fillPlaceholders(raw, values),
      rawResponse: raw,
    });
  }
  return steps;
}
