/** `eval`'s run flags (trials, concurrency, Workers, shards, the output folder, limits) read and checked. */
import { DEFAULT_LIMITS } from "../bridge/bridge.ts";
import type { CallLimits } from "../bridge/bridge.ts";
import { intFlag } from "./args.ts";
import { defaultWorkers, EVAL_FLAGS } from "./eval_flags.ts";
import { InputError } from "./problem.ts";

/** The run flags as `eval` uses them. */
export interface RunFlags {
  label?: string;
  trials: number;
  concurrency: number;
  /** `--concurrency` given (else the default, which a real-time run may lower). */
  concurrencyGiven: boolean;
  /** `--strict`: exactly `concurrency` at once, or refuse. */
  strictConcurrency: boolean;
  workers: number;
  /** `--workers` omitted: used only when the run pays their start-up back. */
  autoWorkers: boolean;
  shard?: { index: number; count: number };
  limits: Omit<CallLimits, "maxDurationMs">;
  minAgentTurns?: number;
}

/** Reads the run flags; a value out of range, or a flag without the one it needs, is an input error. */
export function runFromFlags(values: {
  resume?: boolean;
  out?: string;
  "retry-errors"?: boolean;
  append?: boolean;
  label?: string;
  trials?: string;
  concurrency?: string;
  strict?: boolean;
  workers?: string;
  shard?: string;
  silence?: string;
  "max-turns"?: string;
  "min-agent-turns"?: string;
  "tools-host"?: string;
  "tools-server"?: boolean;
}): RunFlags {
  if (values.resume && !values.out) {
    throw new InputError({ field: "--resume", message: "needs --out DIR" });
  }
  if (values["retry-errors"] && !values.resume) {
    throw new InputError({ field: "--retry-errors", message: "needs --resume (and --out DIR)" });
  }
  if (values.append && !values.out) {
    throw new InputError({ field: "--append", message: "needs --out DIR" });
  }
  const label = values.label;
  if (label !== undefined && (label.trim() === "" || /[\r\n]/.test(label))) {
    throw new InputError({ field: "--label", message: "expected a name on one line" });
  }
  if (values["tools-host"] !== undefined && !values["tools-server"]) {
    throw new InputError({ field: "--tools-host", message: "needs --tools-server" });
  }
  const silence = values.silence === undefined
    ? DEFAULT_LIMITS.silenceMs / 1000
    : Number(values.silence);
  // A timer longer than 2^31-1 ms fires at once, and Infinity does not survive JSON.
  if (!(silence > 0 && silence * 1000 <= 2 ** 31 - 1)) {
    throw new InputError({
      field: "--silence",
      message: `expected seconds > 0 (at most ${Math.floor((2 ** 31 - 1) / 1000)})`,
    });
  }
  if (values.strict && values.concurrency === undefined) {
    throw new InputError({
      field: "--strict",
      message: "needs --concurrency N (the calls to run at once)",
    });
  }
  const shard = parseShard(values.shard);
  return {
    ...(label !== undefined ? { label } : {}),
    trials: intFlag("trials", values.trials, Number(EVAL_FLAGS.trials.default)),
    concurrency: intFlag("concurrency", values.concurrency, Number(EVAL_FLAGS.concurrency.default)),
    concurrencyGiven: values.concurrency !== undefined,
    strictConcurrency: values.strict ?? false,
    workers: intFlag("workers", values.workers, defaultWorkers(), 0),
    autoWorkers: values.workers === undefined,
    ...(shard ? { shard } : {}),
    limits: {
      maxTurns: intFlag("max-turns", values["max-turns"], DEFAULT_LIMITS.maxTurns),
      silenceMs: silence * 1000,
    },
    ...(values["min-agent-turns"] !== undefined
      ? { minAgentTurns: intFlag("min-agent-turns", values["min-agent-turns"], 0, 0) }
      : {}),
  };
}

function parseShard(v: string | undefined): { index: number; count: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) {
    throw new InputError({
      field: "--shard",
      message: `expected i/n with 0 <= i < n, got ${JSON.stringify(v)}`,
    });
  }
  return { index, count };
}
