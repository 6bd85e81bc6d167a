/**
 * What a run needs of its participants: the two ends of each trial's call.
 *
 * @module
 */
import type { CallSetup, Participant } from "../bridge/call.ts";
import type { Scenario } from "../scenario/scenario.ts";

/** Makes the two ends of a trial's call. */
export interface ParticipantFactory {
  /** Makes the agent end for `scenario`, before the call; `setup` is what it will be told. */
  agent(scenario: Scenario, setup: CallSetup): Promise<Participant>;
  /** Makes the caller end for `scenario`, before the call; `setup` is what it will be told. */
  user(scenario: Scenario, setup: CallSetup): Promise<Participant>;
  /** Whether both ends are deterministic, so the call can run on a simulated clock. */
  deterministic(scenario: Scenario): boolean;
}
