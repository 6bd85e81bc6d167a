/**
 * Test harness: one flow call on a simulated clock, through the bridge, with
 * everything the agent was sent recorded. Used by the flow and participant tests.
 *
 * @module
 */
import { type CallOutcome, DEFAULT_LIMITS, runCall } from "../bridge/bridge.ts";
import type { CallEvent, CallLine, CallSetup, Participant } from "../bridge/call.ts";
import { SimClock } from "../clock/clock.ts";
import { domain } from "../domains/flow/mod.ts";
import { Environment } from "../env/environment.ts";
import { type Scenario, type ScenarioInput, ScenarioSchema } from "../scenario/scenario.ts";
import { FlowCaller, type FlowCallerOptions } from "../participants/flow_caller.ts";
import type { FlowNode } from "./schema.ts";
import type { FlowTrace } from "./trace.ts";

export interface SimulatedFlowCall {
  trace: FlowTrace;
  outcome: CallOutcome;
  /** Every event delivered to the agent, in order. */
  agentSaw: CallEvent[];
}

/** Runs `scenario` with `agent` against a `FlowCaller` until the call ends. */
export async function simulateFlowCall(
  scenario: Scenario,
  agent: Participant,
  options: FlowCallerOptions & { seed?: string } = {},
): Promise<SimulatedFlowCall> {
  const seed = options.seed ?? "00";
  const caller = new FlowCaller(scenario, options);
  const setup = (side: "agent" | "user"): CallSetup => ({
    side,
    scenario: scenario.name,
    domain: "flow",
    prompt: side === "agent" ? scenario.agent.prompt : "",
    tools: [],
    ...(side === "agent" && scenario.agent.userdata ? { userdata: scenario.agent.userdata } : {}),
    seed,
  });
  const agentSaw: CallEvent[] = [];
  const outcome = await runCall({
    env: new Environment(domain, { db: {} }, { today: scenario.today, seed }),
    agent,
    user: caller,
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new SimClock(),
    limits: { ...DEFAULT_LIMITS, maxDurationMs: scenario.max_duration_s * 1000 },
    firstSpeaker: "user",
    timedSpeech: true,
    tap: (side, event) => {
      if (side === "agent") agentSaw.push(event);
    },
  });
  await Promise.all([agent.close(), caller.close()]);
  return { trace: caller.flowTrace(), outcome, agentSaw };
}

/** A flow scenario from nodes written in their compiled form (tests). */
export function flowScenario(
  nodes: Record<string, Omit<FlowNode, "speaker"> & { speaker?: FlowNode["speaker"] }>,
  start: string | undefined,
  over: Partial<ScenarioInput> = {},
): Scenario {
  const flow = Object.fromEntries(
    Object.entries(nodes).map(([k, n]) => [k, { speaker: "VOICE", ...n }]),
  );
  return ScenarioSchema.parse({
    name: "flow__test__case",
    domain: "flow",
    max_duration_s: 3600,
    user: start !== undefined ? { start } : { instructions: "You are a test persona." },
    flow,
    success_signals: ["flow_expectation"],
    ...over,
  });
}

/** An agent that acts at fixed call times and records what it hears. */
export class TimedAgent implements Participant {
  readonly info = { kind: "timed" };
  readonly heard: CallEvent[] = [];
  line?: CallLine;
  readonly #plan: [number, (line: CallLine) => void][];
  readonly #react?: (event: CallEvent, line: CallLine) => void;

  constructor(
    plan: [atMs: number, act: (line: CallLine) => void][] = [],
    react?: (event: CallEvent, line: CallLine) => void,
  ) {
    this.#plan = plan;
    this.#react = react;
  }

  start(line: CallLine): Promise<void> {
    this.line = line;
    for (const [at, act] of this.#plan) line.clock.timer(at, () => act(line));
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    this.heard.push(event);
    if (this.line) this.#react?.(event, this.line);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
