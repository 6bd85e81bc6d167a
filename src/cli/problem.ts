/**
 * Problems are data: a bad file line, scenario field or frame becomes a located
 * `Problem`, and a command that meets one exits 2 with one line per problem.
 *
 * @module
 */

export interface Problem {
  /** File (or input name such as `<stdin>`). */
  file?: string;
  /** 1-based line in that file. */
  line?: number;
  /** Scenario, node or record the problem is in. */
  where?: string;
  /** Dotted field path, e.g. `evaluation_criteria.actions[2].name`. */
  field?: string;
  message: string;
  /** A suggestion, e.g. the closest known name. */
  hint?: string;
}

/** One line: `file:line: where: field: message (hint)`. */
export function formatProblem(p: Problem): string {
  const loc = [
    p.file && (p.line ? `${p.file}:${p.line}` : p.file),
    p.where,
    p.field && `field "${p.field}"`,
  ]
    .filter(Boolean).join(": ");
  return (loc ? `${loc}: ` : "") + p.message + (p.hint ? ` (${p.hint})` : "");
}

/**
 * A usage or input error: printed as one line per problem, exit code 2, no stack.
 */
export class InputError extends Error {
  readonly problems: Problem[];
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

/** The closest of `candidates` to `name` (edit distance), if any is close enough. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    // A name contained in a candidate is close (`retail` -> `tau2_retail`), but a
    // letter or two is contained in almost anything.
    const contained = name.length >= 3 && c.toLowerCase().includes(name.toLowerCase());
    const score = contained ? Math.min(d, 1) : d;
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        prev[j]! + 1,
        cur[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = cur;
  }
  return prev[b.length]!;
}
