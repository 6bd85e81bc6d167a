import assert from "node:assert/strict";
import { closest, fieldText, formatProblem } from "./problem.ts";

Deno.test("closest() suggests near names and containing names, not far ones", () => {
  assert.equal(closest("evl", ["eval", "list", "score"]), "eval");
  assert.equal(closest("retail", ["tau2_retail", "tau2_airline"]), "tau2_retail");
  assert.equal(closest("a", ["livekit/hangup", "menu"]), undefined);
  assert.equal(closest("xyzzy", ["eval", "list"]), undefined);
});

Deno.test("formatProblem() puts file, line, place and field first", () => {
  assert.equal(
    formatProblem({
      file: "f.yaml",
      line: 3,
      where: 'node "a"',
      field: "say",
      message: "required",
      hint: "add it",
    }),
    'f.yaml:3: node "a": field "say": required (add it)',
  );
  assert.equal(formatProblem({ message: "no scenarios selected" }), "no scenarios selected");
});

/** The plain search, for comparison: full edit distance against every candidate. */
function plainClosest(name: string, candidates: string[]): string | undefined {
  const dist = (a: string, b: string) => {
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
  };
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = dist(name.toLowerCase(), c.toLowerCase());
    const contained = name.length >= 3 && c.toLowerCase().includes(name.toLowerCase());
    const score = contained ? Math.min(d, 1) : d;
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}

Deno.test("closest() gives the plain edit-distance search's answer on short names", () => {
  let seed = 7;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const word = () => Array.from({ length: 1 + rand(12) }, () => "abcde_"[rand(6)]).join("");
  for (let round = 0; round < 500; round++) {
    const candidates = Array.from({ length: 1 + rand(8) }, word);
    const name = rand(2) ? word() : candidates[0]!.slice(0, -1) + "x";
    assert.equal(
      closest(name, candidates),
      plainClosest(name, candidates),
      `${name} in ${candidates}`,
    );
  }
});

Deno.test("closest() answers a 100k-character unknown name at once, and short names still get hints", () => {
  const scenarios = Array.from(
    { length: 3000 },
    (_, i) => `tau2_telecom__[mms_issue]${"user_abroad_roaming_enabled_off|".repeat(i % 7)}${i}`,
  );
  const long = "x".repeat(100_000);
  // Past the length cap the search looks at no candidate at all (counted, not timed),
  // even one a single edit away.
  let looked = 0;
  const counted = {
    *[Symbol.iterator]() {
      for (const name of [...scenarios, long.slice(1)]) {
        looked++;
        yield name;
      }
    },
  };
  assert.equal(closest(long, counted), undefined);
  assert.equal(looked, 0, `the search looked at ${looked} candidates`);
  // The worst case under the name cap: as long as allowed, against long, similar names.
  const near = "tau2_telecom__[mms_issue]" + "a".repeat(230);
  const similar = Array.from({ length: 5000 }, (_, i) => near.slice(0, 200) + "b".repeat(55) + i);
  const t1 = performance.now();
  closest(near, similar);
  const worst = performance.now() - t1;
  // About 10 ms idle; the bound leaves room for a loaded 2-core machine, and an unbounded
  // edit distance over these 5,000 names (some 300 million cells) takes seconds.
  assert.ok(worst < 1000, `took ${worst.toFixed(1)} ms`);
  const typo = "tau2_telecom__[mms_issue]2l";
  assert.equal(closest(typo, scenarios), "tau2_telecom__[mms_issue]21");
  assert.equal(closest(typo, scenarios), plainClosest(typo, scenarios));
  assert.equal(closest("tau2_retial", ["tau2_retail", "tau2_airline"]), "tau2_retail");
});

Deno.test("fieldText() writes list indexes in brackets, keys dotted", () => {
  assert.equal(
    fieldText(["evaluation_criteria", "actions", 3, "name"]),
    "evaluation_criteria.actions[3].name",
  );
  assert.equal(fieldText([0, "id"]), "[0].id");
  assert.equal(fieldText(["agent", "tools", 2]), "agent.tools[2]");
  assert.equal(fieldText([]), "");
});
