/**
 * One record of EVA-Bench's later release (`itsm_dataset.json`,
 * `medical_hr_dataset.json`), as far as callbench reads it: the caller's goal and
 * persona with culture placeholders, the starting utterance of each language, the
 * culture values, and the gold conversation and end state. Unknown keys are kept.
 *
 * @module
 */
import { z } from "zod";
import { CultureSchema } from "./culture.ts";
import type { TraceStep } from "./gold_rebind.ts";

const Strings = z.array(z.string()).default([]);

export const ReleaseRecordSchema = z.looseObject({
  id: z.string().min(1),
  current_date_time: z.string().optional(),
  user_goal: z.looseObject({
    high_level_user_goal: z.string(),
    decision_tree: z.looseObject({
      must_have_criteria: Strings,
      nice_to_have_criteria: Strings,
      negotiation_behavior: Strings,
      resolution_condition: z.string().default(""),
      failure_condition: z.string().default(""),
      escalation_behavior: z.string().default(""),
      edge_cases: Strings,
    }),
    information_required: z.record(z.string(), z.unknown()).default({}),
  }),
  user_config: z.looseObject({ name: z.string(), user_persona: z.string().default("") }),
  starting_utterances: z.record(z.string(), z.string()),
  ground_truth: z.looseObject({
    expected_scenario_db: z.record(z.string(), z.unknown()),
    expected_trace: z.looseObject({
      trace: z.array(z.looseObject({
        event_type: z.string(),
        tool_name: z.string().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
        response: z.unknown().optional(),
      })),
    }),
  }),
}).and(CultureSchema);
export type ReleaseRecord = z.infer<typeof ReleaseRecordSchema>;

/** The gold tool calls of a record, in order, with the results recorded for them (placeholders kept). */
export function goldSteps(record: ReleaseRecord): TraceStep[] {
  const events = record.ground_truth.expected_trace.trace;
  const steps: TraceStep[] = [];
  events.forEach((e, i) => {
    if (e.event_type !== "tool_call" || !e.tool_name) return;
    const next = events[i + 1];
    steps.push({
      name: e.tool_name,
      arguments: e.params ?? {},
      recorded: next?.event_type === "tool_response" ? next.response : undefined,
    });
  });
  return steps;
}
