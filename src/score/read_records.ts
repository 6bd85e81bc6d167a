/**
 * Reads JSON Lines records of one schema from files or stdin: a line that is not
 * JSON, or not a valid record, stops the read with a located `InputError` (file, line,
 * field), so `score`, `report`, `compare` and `explain` never throw through on bad input.
 *
 * @module
 */
import type { z } from "zod";
import { inputs, readJsonl } from "../jsonl/jsonl.ts";
import { fieldText, InputError } from "../problem/problem.ts";
import { TRIAL_RECORD_SCHEMA, TrialRecordSchema } from "../runner/trial_record.ts";
import { scoreTrial } from "./score_trial.ts";
import type { Verdict } from "./verdict.ts";

/** Each valid record, with where it came from. */
export async function* readRecords<S extends z.ZodType>(
  files: string[],
  stdin: ReadableStream<Uint8Array>,
  schema: S,
  what: string,
): AsyncGenerator<{ file: string; line: number; record: z.infer<S> }> {
  for await (const { name, stream } of inputs(files, stdin)) {
    for await (const { line, value } of readJsonl(stream, name)) {
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw recordError(parsed.error, name, line, what, value);
      yield { file: name, line, record: parsed.data };
    }
  }
}

/**
 * Verdicts from JSON Lines of verdicts or trial records, told apart line by line by
 * their "schema": a trial record is scored on the way (offline, without a judge), a
 * verdict parsed by `schema` (the verdict schema, or a lighter part of it).
 */
export async function* readVerdicts<S extends z.ZodType>(
  files: string[],
  stdin: ReadableStream<Uint8Array>,
  schema: S,
): AsyncGenerator<{ file: string; line: number; record: z.infer<S> | Verdict }> {
  for await (const { name, stream } of inputs(files, stdin)) {
    for await (const { line, value } of readJsonl(stream, name)) {
      if ((value as { schema?: unknown } | null)?.schema === TRIAL_RECORD_SCHEMA) {
        const parsed = TrialRecordSchema.safeParse(value);
        if (!parsed.success) throw recordError(parsed.error, name, line, "trial record", value);
        yield { file: name, line, record: scoreTrial(parsed.data) };
        continue;
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw recordError(parsed.error, name, line, "verdict", value);
      yield { file: name, line, record: parsed.data };
    }
  }
}

/** The first issue of a failed parse as a located `InputError`. */
export function recordError(
  error: z.ZodError,
  file: string,
  line: number,
  what: string,
  value: unknown,
): InputError {
  const issue = error.issues[0]!;
  const field = fieldText(issue.path);
  const schemaField = typeof value === "object" && value !== null
    ? (value as Record<string, unknown>).schema
    : undefined;
  const hint = field === "schema"
    ? `is this a ${what}? its "schema" is ${JSON.stringify(schemaField ?? null)}`
    : undefined;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
  return new InputError({
    file,
    line,
    ...(field ? { field } : {}),
    message: `invalid ${what}: ${issue.message}${more}`,
    ...(hint ? { hint } : {}),
  });
}
