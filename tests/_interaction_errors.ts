/**
 * The errors of `interaction_realclock_test.ts`, printed: each latency the record gives
 * less what the agent of known behaviour produced by its own log, per agent, framing and
 * run, then the largest and the median of their magnitudes per framing, and the load
 * average. Run with the `test` task's permissions plus `--allow-sys=loadavg`:
 * `deno run <flags> tests/_interaction_errors.ts [RUNS] [json,protobuf,twilio]`.
 *
 * @module
 */
import { call } from "./interaction_realclock_test.ts";

const modes = ["perfect", "stops_on_backchannel", "never_yields", "jumps_into_pauses"] as const;
const framings = (Deno.args[1] ?? "json,protobuf,twilio").split(",") as (
  | "json"
  | "protobuf"
  | "twilio"
)[];
const runs = Number(Deno.args[0] ?? 1);
const all: Record<string, number[]> = {};
const r1 = (x: number) => Math.round(x * 10) / 10;
for (let r = 0; r < runs; r++) {
  for (const framing of framings) {
    for (const mode of modes) {
      const got = await call(mode, framing);
      for (const key of ["response_latency_ms", "yield_latency_ms"] as const) {
        const a = got.m[key];
        const p = got.produced[key];
        // A value the agent did not produce (or the record missed) is an error of its own.
        const e = a.length === p.length ? a.map((x, i) => r1(x - p[i]!)) : [NaN];
        (all[framing] ??= []).push(...e);
        console.log(framing, mode, key, "error", JSON.stringify(e), "record", JSON.stringify(a));
      }
    }
  }
}
for (const [framing, errors] of Object.entries(all)) {
  const abs = errors.map(Math.abs).sort((a, b) => a - b);
  const max = abs.some(Number.isNaN) ? NaN : abs.at(-1);
  console.log(framing, "values", abs.length, "max", max, "median", abs[abs.length >> 1]);
}
console.log("load", Deno.loadavg());
