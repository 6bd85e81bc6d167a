/**
 * The gold traces of EVA-Bench's release were recorded before its tools minted ids
 * from content: a trace's later calls quote the counter ids of its earlier results
 * (`REQ-SW-048271`), where today's tools mint `REQ-SW-6d94147c44a3` and the expected
 * end states hold those. Replaying a trace therefore rebinds ids as it goes: where a
 * result of ours holds an id at the place the recorded result held another, later
 * calls get ours. What comes out is the trace's calls as today's tools take them.
 *
 * @module
 */
import type { Environment } from "../../env/environment.ts";

/** An id a tool mints (the reference's own pattern for them). */
const MINTED_ID = /^(REQ-[A-Z]+-|INC|CASE-[A-Z]+-|SEC-|CAL-)[A-Za-z0-9]+$/;

/** One gold call with the result the trace recorded for it. */
export interface TraceStep {
  name: string;
  arguments: Record<string, unknown>;
  recorded: unknown;
}

/** Runs the steps on `env`, returning each call's arguments with ids rebound. */
export function replayRebinding(
  env: Environment,
  steps: readonly TraceStep[],
): { name: string; arguments: Record<string, unknown> }[] {
  const ids = new Map<string, string>();
  const out: { name: string; arguments: Record<string, unknown> }[] = [];
  for (const step of steps) {
    const args = rebind(step.arguments, ids) as Record<string, unknown>;
    const call = env.call("agent", step.name, args);
    collect(step.recorded, call.result, ids);
    out.push({ name: step.name, arguments: args });
  }
  return out;
}

function rebind(v: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof v === "string") return ids.get(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => rebind(x, ids));
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rebind(x, ids)]));
  }
  return v;
}

function collect(recorded: unknown, ours: unknown, ids: Map<string, string>): void {
  if (typeof recorded === "string") {
    if (
      typeof ours === "string" && ours !== recorded && MINTED_ID.test(recorded) &&
      MINTED_ID.test(ours)
    ) {
      ids.set(recorded, ours);
    }
    return;
  }
  if (Array.isArray(recorded)) {
    if (!Array.isArray(ours)) return;
    recorded.forEach((x, i) => collect(x, ours[i], ids));
    return;
  }
  if (typeof recorded === "object" && recorded !== null) {
    if (typeof ours !== "object" || ours === null || Array.isArray(ours)) return;
    for (const [k, x] of Object.entries(recorded)) {
      collect(x, (ours as Record<string, unknown>)[k], ids);
    }
  }
}
