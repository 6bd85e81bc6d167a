/** How many real-time audio calls run at once, and the gate that starts each. */
import { loadAverage } from "../runner/worker_count.ts";
import { RealClock } from "../clock/clock.ts";
import type { WireFraming } from "../transport/mapping.ts";

/**
 * A real-time audio run's concurrency (the table of `realtime_concurrency.ts` times
 * the idle cores, at most `requested`) and its gate on the pacers' lateness; `why` when
 * the table gives fewer than `requested`. `strict`: exactly `requested`, with no gate.
 */
export async function realTimeRun(
  framing: WireFraming,
  requested: number | undefined,
  strict = false,
): Promise<{
  concurrency: number;
  admit?: (signal?: AbortSignal) => Promise<void>;
  requested?: { trials: number; why: string };
}> {
  if (strict && requested !== undefined) return { concurrency: requested };
  const { realTimeConcurrency, realTimeConcurrencyWhy, RealTimeGate } = await import(
    "../runner/realtime_concurrency.ts"
  );
  const { realTimeLateness } = await import("../audio/pacer.ts");
  const load = loadAverage();
  const gate = new RealTimeGate({ meter: realTimeLateness, clock: new RealClock() });
  const input = {
    framing,
    cores: navigator.hardwareConcurrency,
    ...(load !== undefined ? { loadAverage: load } : {}),
    ...(requested !== undefined ? { requested } : {}),
  };
  const concurrency = realTimeConcurrency(input);
  return {
    concurrency,
    admit: (signal) => gate.admit(signal),
    ...(requested !== undefined && concurrency < requested
      ? { requested: { trials: requested, why: realTimeConcurrencyWhy(input) } }
      : {}),
  };
}
