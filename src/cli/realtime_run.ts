/** How many real-time audio calls run at once, and the gate that starts each. */
import { loadAverage } from "../runner/worker_count.ts";
import { RealClock } from "../clock/clock.ts";
import type { WireFraming } from "../transport/mapping.ts";

export /**
 * A real-time audio run's concurrency (the table of `realtime_concurrency.ts` times
 * the idle cores, at most `requested`) and its gate on the pacers' lateness.
 */
async function realTimeRun(
  framing: WireFraming,
  requested: number | undefined,
): Promise<{ concurrency: number; admit: (signal?: AbortSignal) => Promise<void> }> {
  const { realTimeConcurrency, RealTimeGate } = await import("../runner/realtime_concurrency.ts");
  const { realTimeLateness } = await import("../audio/pacer.ts");
  const load = loadAverage();
  const gate = new RealTimeGate({ meter: realTimeLateness, clock: new RealClock() });
  return {
    concurrency: realTimeConcurrency({
      framing,
      cores: navigator.hardwareConcurrency,
      ...(load !== undefined ? { loadAverage: load } : {}),
      ...(requested !== undefined ? { requested } : {}),
    }),
    admit: (signal) => gate.admit(signal),
  };
}
