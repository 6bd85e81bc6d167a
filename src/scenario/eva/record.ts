/**
 * One line of `eva_airline/eva_airline_dataset.jsonl` (reference-harness §9), as far
 * as callbench reads it, and the scenario names the reference gives the records.
 * Unknown keys are kept: the dataset carries more than is used here.
 *
 * @module
 */
import { z } from "zod";

const Strings = z.array(z.string()).default([]);

/** A reference call of a record: what our fixtures carry in place of a gold trace. */
export const GoldCallSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
}).strict();
export type GoldCall = z.infer<typeof GoldCallSchema>;

export const EvaRecordSchema = z.looseObject({
  id: z.string().regex(/^\d+\.\d+\.\d+$/, { error: "expected an eva id such as 1.1.2" }),
  current_date_time: z.string().optional(),
  user_goal: z.looseObject({
    high_level_user_goal: z.string(),
    starting_utterance: z.string(),
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
  user_config: z.looseObject({
    name: z.string(),
    user_persona: z.string().default(""),
  }),
  expected_flow: z.string().optional(),
  ground_truth: z.looseObject({
    expected_scenario_db: z.record(z.string(), z.unknown()),
  }),
  /** Our fixtures' reference calls, used when the data root has no gold trace. */
  gold_calls: z.array(GoldCallSchema).optional(),
});
export type EvaRecord = z.infer<typeof EvaRecordSchema>;

/** The five hand-authored reference scenarios keep descriptive names. */
export const SEED_NAMES: Readonly<Record<string, string>> = {
  "1.1.2": "voluntary_date_change",
  "2.1.1": "irrops_cancellation",
  "3.1.3": "missed_flight_standby",
  "5.1.1": "cancellation_refund",
  "7.2.1": "escalation_edge_case",
};

/** `eva_airline__voluntary_date_change` for a seed, else `eva_airline__1_2_3`. */
export function evaScenarioName(id: string): string {
  return `eva_airline__${SEED_NAMES[id] ?? id.replaceAll(".", "_")}`;
}

/**
 * `eva_airline__voluntary_date_change` for `eva_airline__1_1_2`, the numbered name of
 * one of the five named seeds; undefined for any other name.
 */
export function evaSeedAlias(name: string): string | undefined {
  const m = /^eva_airline__(\d+)_(\d+)_(\d+)$/.exec(name);
  const id = m ? `${m[1]}.${m[2]}.${m[3]}` : undefined;
  return id !== undefined && SEED_NAMES[id] ? evaScenarioName(id) : undefined;
}

/** Numeric order of eva ids (`1.10.1` after `1.9.1`). */
export function compareEvaIds(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The reference's registration order: the seeds first (in id order), then the other
 * records by numeric id.
 */
export function compareRegistrationOrder(a: string, b: string): number {
  const sa = a in SEED_NAMES ? 0 : 1;
  const sb = b in SEED_NAMES ? 0 : 1;
  return sa - sb || compareEvaIds(a, b);
}
