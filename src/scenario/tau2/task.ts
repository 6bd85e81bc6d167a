/**
 * The shape of a tau2 task (`tasks.json` entries) as far as callbench reads it.
 * Fields it does not read pass through untouched; a field it reads with the wrong
 * type makes that task a located problem.
 *
 * @module
 */
import { z } from "zod";

const Json = z.record(z.string(), z.unknown());

/** `env_type` is tau2's side name: `assistant` is the agent. */
export const EnvType = z.enum(["user", "assistant"]);

export const Tau2InitActionSchema = z.looseObject({
  env_type: EnvType,
  func_name: z.string().min(1),
  arguments: Json.nullish(),
});

export const Tau2ActionSchema = z.looseObject({
  action_id: z.string().nullish(),
  /** Who makes the call; absent (airline, retail) means the agent. */
  requestor: EnvType.nullish(),
  name: z.string().min(1),
  arguments: Json.nullish(),
  compare_args: z.array(z.string()).nullish(),
});

export const Tau2EnvAssertionSchema = z.looseObject({
  env_type: EnvType,
  func_name: z.string().min(1),
  arguments: Json.nullish(),
  assert_value: z.unknown(),
  message: z.string().nullish(),
});

export const Tau2InstructionsSchema = z.looseObject({
  task_instructions: z.string().nullish(),
  reason_for_call: z.string().nullish(),
  known_info: z.string().nullish(),
  unknown_info: z.string().nullish(),
});

export const Tau2TaskSchema = z.looseObject({
  id: z.string().min(1),
  description: z.looseObject({ purpose: z.string().nullish() }).nullish(),
  user_scenario: z.looseObject({ instructions: Tau2InstructionsSchema.nullish() }).nullish(),
  initial_state: z.looseObject({
    initialization_actions: z.array(Tau2InitActionSchema).nullish(),
  }).nullish(),
  evaluation_criteria: z.looseObject({
    actions: z.array(Tau2ActionSchema).nullish(),
    env_assertions: z.array(Tau2EnvAssertionSchema).nullish(),
    nl_assertions: z.array(z.string()).nullish(),
  }).nullish(),
});

export type Tau2Task = z.infer<typeof Tau2TaskSchema>;
export type Tau2Instructions = z.infer<typeof Tau2InstructionsSchema>;

/** tau2's side name as callbench's. */
export function sideOf(envType: "user" | "assistant" | null | undefined): "user" | "agent" {
  return envType === "user" ? "user" : "agent";
}
