/**
 * Problems as the CLI says them. The library's problems name settings by their library
 * names (`option`) and kinds of problem by `code`, never a flag or an environment
 * variable; the one table here turns an option into its flag and a code into the
 * CLI's hint (which may name flags and environment variables). Commands print
 * problems through {@link formatProblem} and {@link cliError} of this module, and the
 * dispatcher (`cli.ts`) maps every `InputError` a command throws.
 *
 * @module
 */
import {
  formatProblem as formatLibraryProblem,
  InputError,
  type Problem,
  type ProblemCode,
  type ProblemOption,
} from "../problem/problem.ts";

export {
  closest,
  CLOSEST_MAX_CANDIDATES,
  CLOSEST_MAX_NAME_CHARS,
  CLOSEST_MAX_STEPS,
  InputError,
} from "../problem/problem.ts";
export type { Problem, ProblemCode, ProblemOption } from "../problem/problem.ts";

/** The flag of each library option. */
export const OPTION_FLAGS: Readonly<Record<ProblemOption, string>> = {
  host: "--host",
  port: "--port",
  token: "--token",
  out: "--out",
  agent: "--agent",
  user: "--user",
  data_root: "--data-root",
};

/** The CLI's hint for each problem code (in place of the library's neutral one). */
export const CODE_HINTS: Readonly<Record<ProblemCode, (p: Problem) => string>> = {
  token_required: () =>
    "pass --token or set CALLBENCH_TOKEN; clients send it as a Bearer header or ?token=",
  port_in_use: () => "stop what holds it or pick another port; --port 0 picks a free one",
  listen_not_permitted: () =>
    "run it with --allow-net for that address (deno task serve allows loopback)",
  out_other_config: () => "use a new folder, or --append to add this configuration to it",
  out_not_empty: () =>
    "--resume continues the run in it, --append adds to it (records twice), or use a new --out folder",
  model_missing: () =>
    "set --agent-model/--user-model and --base-url, or OPENAI_BASE_URL and CALLBENCH_AGENT_MODEL/CALLBENCH_USER_MODEL",
  data_root_not_found: () =>
    "pass --data-root DIR or set EVAL_DATA_ROOT to a folder laid out as <domain>/...",
  data_root_unreadable: () =>
    "run it with --allow-read for that folder (deno task cli can read anywhere)",
  world_not_in_data_root: () =>
    "pass --data-root (or set EVAL_DATA_ROOT) to the data root the file was written for",
  world_differs: () =>
    "pass --data-root (or set EVAL_DATA_ROOT) to the data root the file was scaffolded from",
  audio_required: () => "add --audio",
  scenario_from_other_root: (p) =>
    `run eval on the data root it was listed from: --data-root ${p.value ?? "(unknown)"}`,
};

/**
 * `p` as the CLI says it: without a field, its option's flag is the field (`flags`
 * overrides a flag, e.g. the environment variable a value came from); a code's hint
 * replaces the library's. Mapping twice changes nothing.
 */
export function cliProblem(
  p: Problem,
  flags: Partial<Record<ProblemOption, string>> = {},
): Problem {
  const field = p.field ?? (p.option && (flags[p.option] ?? OPTION_FLAGS[p.option]));
  const hint = p.code ? CODE_HINTS[p.code](p) : p.hint;
  return { ...p, ...(field ? { field } : {}), ...(hint ? { hint } : {}) };
}

/** One line as the CLI prints it: {@link cliProblem}, then the library's format. */
export function formatProblem(p: Problem): string {
  return formatLibraryProblem(cliProblem(p));
}

/**
 * `e` with its problems as the CLI says them ({@link cliProblem}); anything else
 * unchanged.
 */
export function cliError(e: InputError, flags?: Partial<Record<ProblemOption, string>>): InputError;
export function cliError(e: unknown, flags?: Partial<Record<ProblemOption, string>>): unknown;
export function cliError(
  e: unknown,
  flags: Partial<Record<ProblemOption, string>> = {},
): unknown {
  if (!(e instanceof InputError)) return e;
  return new InputError(e.problems.map((p) => cliProblem(p, flags)));
}
