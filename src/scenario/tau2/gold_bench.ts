/**
 * What gold replay and a trial's world cost. The real-data benches read the data
 * root from `EVAL_DATA_ROOT`, else `../shared/datasets`, and are skipped without it.
 *
 *   deno bench --allow-read --allow-env=NODE_ENV,EVAL_DATA_ROOT src/scenario/tau2/gold_bench.ts
 */
import { fileURLToPath } from "node:url";
import { openEnvironment } from "../open_environment.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../data_root.ts";
import type { Scenario } from "../scenario.ts";
import { replayGold } from "./gold.ts";
import { suites } from "./suites.ts";

const realPath = Deno.env.get("EVAL_DATA_ROOT") ??
  fileURLToPath(new URL("../../../../shared/datasets", import.meta.url));
const real = new DataRoot(realPath);
const present = suites.every((s) => s.present(real));
const bundled = new DataRoot(BUNDLED_DATA_ROOT);

async function scenariosOf(root: DataRoot, ids: readonly string[]): Promise<Scenario[]> {
  const out: Scenario[] = [];
  for (const suite of suites.filter((s) => ids.includes(s.id))) {
    out.push(...(await suite.load(root)).scenarios);
  }
  return out;
}

const ALL = suites.map((s) => s.id);
// Loading parses every world once and replays each scenario's gold once (warm-up).
const everything = present ? await scenariosOf(real, ALL) : [];
const realRetail = present ? await scenariosOf(real, ["tau2_retail"]) : [];
const fixtureRetail = await scenariosOf(bundled, ["tau2_retail"]);

Deno.bench({
  name: "gold replay of all 392 tau2 scenarios (worlds parsed)",
  group: "gold",
  ignore: !present,
  n: 5,
  warmup: 1,
  async fn() {
    for (const scenario of everything) await replayGold(real, scenario);
  },
});

for (const id of ALL) {
  const scenarios = everything.filter((s) => s.suite === id);
  Deno.bench({
    name: `gold replay of ${id} (${scenarios.length} scenarios)`,
    group: "gold",
    ignore: !present,
    n: 5,
    warmup: 1,
    async fn() {
      for (const scenario of scenarios) await replayGold(real, scenario);
    },
  });
}

Deno.bench({
  name: "open a trial Environment on the real retail world",
  group: "open",
  ignore: !present,
  async fn() {
    await openEnvironment(real, realRetail[0]!, "trial-1");
  },
});

Deno.bench({
  name: "open a trial Environment on the fixture retail world",
  group: "open",
  async fn() {
    await openEnvironment(bundled, fixtureRetail[0]!, "trial-1");
  },
});

Deno.bench({
  name: "open, one write and the end hash on the real retail world",
  group: "trial",
  ignore: !present,
  async fn() {
    const { env } = await openEnvironment(real, realRetail[0]!, "trial-1");
    const last = realRetail[0]!.expect.reference_actions!.at(-1)!;
    env.call("agent", last.name, last.arguments);
    env.hashes();
  },
});
