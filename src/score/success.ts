/**
 * The composite verdict (reference-harness §3.2): a scenario's `success_signals`
 * whitelist gates `is_successful`, a strict AND over the whitelisted signals that apply
 * (`"N/A"` when none does); the breakdown partitions the whitelist by verdict and lists
 * the computed signals outside it as `excluded`; `is_task_successful` ignores a failed
 * `clean_exit`.
 *
 * @module
 */
import { type Signal, SIGNALS } from "../scenario/scenario.ts";
import type { Signals, SuccessBreakdown } from "./verdict.ts";

export interface Success {
  is_successful: boolean | "N/A";
  /** Present when `is_successful` is boolean. */
  is_task_successful?: boolean;
  success_breakdown: SuccessBreakdown;
}

/** Composes `is_successful`, `is_task_successful` and the breakdown. */
export function composeSuccess(signals: Signals, whitelist: readonly Signal[]): Success {
  const gated = new Set(whitelist);
  const breakdown: SuccessBreakdown = { passed: [], failed: [], not_applicable: [], excluded: [] };
  for (const signal of SIGNALS) {
    const value = signals[signal];
    if (!gated.has(signal)) {
      if (value !== null) breakdown.excluded.push(signal);
    } else if (value === null) {
      breakdown.not_applicable.push(signal);
    } else {
      (value ? breakdown.passed : breakdown.failed).push(signal);
    }
  }
  if (breakdown.passed.length + breakdown.failed.length === 0) {
    return { is_successful: "N/A", success_breakdown: breakdown };
  }
  return {
    is_successful: breakdown.failed.length === 0,
    is_task_successful: breakdown.failed.every((s) => s === "clean_exit"),
    success_breakdown: breakdown,
  };
}
