/**
 * Problems are data: a bad file line, scenario field or frame becomes a located
 * `Problem`, and a command that meets one exits 2 with one line per problem.
 *
 * The library names no flag and no environment variable: a problem about a setting
 * carries the setting's library name (`option`) and, where a front end would suggest
 * something of its own, a `code`; `src/cli/problem.ts` turns those into flags and hints.
 *
 * @module
 */
import { clip, printable } from "./quote.ts";

/**
 * Settings a problem can be about, by their library names (the CLI maps each to its
 * flag): the server's `host`, `port` and bearer `token`; a run's output folder `out`;
 * the `agent` and `user` participant specs; the `data_root` scenarios are read from.
 */
export const PROBLEM_OPTIONS = [
  "host",
  "port",
  "token",
  "out",
  "agent",
  "user",
  "data_root",
] as const;
/** One of {@link PROBLEM_OPTIONS}. */
export type ProblemOption = typeof PROBLEM_OPTIONS[number];

/**
 * Kinds of problem a front end may explain in its own words (the CLI's hints name its
 * flags and environment variables):
 *
 * - `token_required`: a non-loopback address without a bearer token.
 * - `port_in_use`: the port is bound by something else.
 * - `listen_not_permitted`: the runtime's permissions forbid listening there.
 * - `out_other_config`: the output folder holds trials of another configuration.
 * - `model_missing`: an LLM participant without a model or base URL.
 * - `data_root_not_found`: the data root is not a folder.
 * - `data_root_unreadable`: the runtime's permissions forbid reading the data root.
 * - `world_not_in_data_root`: a scenario file's world is missing from this data root.
 * - `world_differs`: a scenario file's world differs from this data root's.
 * - `scenario_from_other_root`: a listed scenario came from another data root
 *   (`value` is that root).
 * - `audio_required`: a participant that hears the other end's audio, in a text call.
 */
export const PROBLEM_CODES = [
  "token_required",
  "port_in_use",
  "listen_not_permitted",
  "out_other_config",
  "out_not_empty",
  "model_missing",
  "data_root_not_found",
  "data_root_unreadable",
  "world_not_in_data_root",
  "world_differs",
  "scenario_from_other_root",
  "audio_required",
] as const;
/** One of {@link PROBLEM_CODES}. */
export type ProblemCode = typeof PROBLEM_CODES[number];

/** A located problem with an input: where it is, what is wrong, and a hint. */
export interface Problem {
  /** File (or input name such as `<stdin>`). */
  file?: string;
  /** 1-based line in that file. */
  line?: number;
  /** Scenario, node or record the problem is in. */
  where?: string;
  /** Dotted field path, e.g. `evaluation_criteria.actions[2].name`. */
  field?: string;
  /** What is wrong, in one sentence. */
  message: string;
  /** A suggestion, e.g. the closest known name (neutral: no flag names). */
  hint?: string;
  /** The setting the problem is about, by its library name (the CLI names its flag). */
  option?: ProblemOption;
  /** What kind of problem it is, for a front end to explain in its own words. */
  code?: ProblemCode;
  /** The value the code's explanation needs (e.g. the data root to use instead). */
  value?: string;
}

/** A problem's `field` for a value path: `agent.tools[2]` for `["agent", "tools", 2]`. */
export function fieldText(path: readonly PropertyKey[]): string {
  let out = "";
  for (const k of path) {
    if (typeof k === "number") out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}

/**
 * One line: `file:line: where: field: message (hint)`; a problem about a setting and
 * no field shows `option "name"`. Each part is bounded and its control characters
 * written out (src/problem/quote.ts): a part may quote what a user or a peer supplied.
 */
export function formatProblem(p: Problem): string {
  const part = (s: string) => printable(clip(s));
  const loc = [
    p.file && (p.line ? `${part(p.file)}:${p.line}` : part(p.file)),
    p.where && part(p.where),
    p.field ? `field "${part(p.field)}"` : p.option && `option "${p.option}"`,
  ]
    .filter(Boolean).join(": ");
  return (loc ? `${loc}: ` : "") + part(p.message) + (p.hint ? ` (${part(p.hint)})` : "");
}

/**
 * A usage or input error: printed as one line per problem, exit code 2, no stack.
 */
export class InputError extends Error {
  /** What is wrong, one entry per problem. */
  readonly problems: Problem[];
  /** A plain string is one problem with that message. */
  constructor(problems: Problem | Problem[] | string) {
    const list = typeof problems === "string"
      ? [{ message: problems }]
      : Array.isArray(problems)
      ? problems
      : [problems];
    super(list.map(formatProblem).join("\n"));
    this.name = "InputError";
    this.problems = list;
  }
}

/** Longest name the closest-name search considers; a longer one gets no suggestion. */
export const CLOSEST_MAX_NAME_CHARS = 256;
/** Most candidates the search looks at. */
export const CLOSEST_MAX_CANDIDATES = 100_000;
/** Most steps (edit-distance cells, characters counted) the search takes in all. */
export const CLOSEST_MAX_STEPS = 1_000_000;

/**
 * The closest of `candidates` to `name` (edit distance, ignoring case), if any is close
 * enough. The work is bounded whatever the input: names over
 * {@link CLOSEST_MAX_NAME_CHARS} get no suggestion; a candidate is skipped when a cheap
 * lower bound (length, then letter counts) shows it cannot beat the best so far; each
 * distance is computed in a band no wider than the best that could still win; and the
 * search stops after {@link CLOSEST_MAX_CANDIDATES} candidates or
 * {@link CLOSEST_MAX_STEPS} steps with the best found so far.
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length === 0 || name.length > CLOSEST_MAX_NAME_CHARS) return undefined;
  const wanted = name.toLowerCase();
  const wantedCounts = letterCounts(wanted);
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestScore = limit + 1;
  const budget = { steps: CLOSEST_MAX_STEPS };
  let seen = 0;
  for (const c of candidates) {
    if (++seen > CLOSEST_MAX_CANDIDATES || budget.steps <= 0) break;
    budget.steps -= 1 + (c.length >> 4);
    const lower = c.toLowerCase();
    if (lower === wanted) return c;
    // A name contained in a candidate is close (`retail` -> `tau2_retail`), but a
    // letter or two is contained in almost anything.
    if (bestScore > 1 && name.length >= 3 && lower.includes(wanted)) {
      best = c;
      bestScore = 1;
      continue;
    }
    // Only a strictly better distance can win: that bounds the work on this candidate.
    const bound = bestScore - 1;
    if (bound < 1 || Math.abs(lower.length - wanted.length) > bound) continue;
    budget.steps -= lower.length;
    if (bagDistance(wantedCounts, lower) > bound) continue;
    const d = boundedEditDistance(...withoutCommonEnds(wanted, lower), bound, budget);
    if (d <= bound) {
      best = c;
      bestScore = d;
    }
  }
  return best;
}

/** Letter counts by char code (codes past 127 share one bucket, which keeps bounds low). */
function letterCounts(s: string): Int32Array {
  const counts = new Int32Array(129);
  for (let i = 0; i < s.length; i++) counts[Math.min(s.charCodeAt(i), 128)]!++;
  return counts;
}

/** A lower bound of the edit distance: the letters one has more of than the other. */
function bagDistance(counts: Int32Array, s: string): number {
  const diff = counts.slice();
  for (let i = 0; i < s.length; i++) diff[Math.min(s.charCodeAt(i), 128)]!--;
  let more = 0;
  let fewer = 0;
  for (const d of diff) {
    if (d > 0) more += d;
    else fewer -= d;
  }
  return Math.max(more, fewer);
}

/** `a` and `b` without their common prefix and suffix (which never change the distance). */
function withoutCommonEnds(a: string, b: string): [string, string] {
  const shorter = Math.min(a.length, b.length);
  let start = 0;
  while (start < shorter && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end)
  ) end++;
  return [a.slice(start, a.length - end), b.slice(start, b.length - end)];
}

/**
 * Edit distance of `a` and `b` if it is at most `k`, else `k + 1`, computing only the
 * diagonal band of width `2k + 1` (`|a.length - b.length| <= k` is assumed), each cell
 * taken from `budget`; an exhausted budget also answers `k + 1`.
 */
function boundedEditDistance(a: string, b: string, k: number, budget: { steps: number }): number {
  const over = k + 1;
  const m = b.length;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j <= k ? j : over;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - k);
    const hi = Math.min(m, i + k);
    budget.steps -= hi - lo + 1;
    if (budget.steps < 0) return over;
    cur[lo - 1] = lo === 1 ? Math.min(i, over) : over;
    let rowMin = cur[lo - 1]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      let v = prev[j - 1]! + (ai === b.charCodeAt(j - 1) ? 0 : 1);
      const up = prev[j]! + 1;
      const left = cur[j - 1]! + 1;
      if (up < v) v = up;
      if (left < v) v = left;
      if (v > over) v = over;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi < m) cur[hi + 1] = over;
    if (rowMin > k) return over;
    [prev, cur] = [cur, prev];
  }
  return Math.min(prev[m]!, over);
}
