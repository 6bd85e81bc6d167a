/**
 * eva_airline against the real data: for each of the 50 scenarios, replay the gold
 * trace's tool calls on a fresh Environment and check (1) the final hash equals the
 * hash of the dataset's `expected_scenario_db` and (2) every tool result agrees with
 * the trace's recorded response, field by field.
 *
 * Three kinds of difference are explained, counted and checked, never ignored:
 * - templated: the trace release replaced names with placeholders (and capitalises
 *   them inside e-mail addresses); our value must match the template.
 * - aliased: eva logged `search_rebooking_options` results by reference, so the seat
 *   counts inside `options[].segments` show the world at the end of the call, after
 *   later rebookings; the trace value must equal the final world's.
 * - transfer stub: eva's orchestrator answers `transfer_to_agent` itself with
 *   `{"status": "transfer_initiated"}`; ours returns the reference harness's result
 *   and must end the call.
 *
 *   deno test --allow-read --allow-env=NODE_ENV,EVAL_DATA_ROOT,LOG_TOKENS,LOG_STREAM \
 *     tests/conformance/eva_airline_test.ts
 */
import assert from "node:assert/strict";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { openEnvironment } from "../../src/scenario/open_environment.ts";
import { suite } from "../../src/scenario/eva/suite.ts";
import {
  goldSteps,
  hasPlaceholder,
  templatePattern,
  TRACE_FILE,
  TraceRecordSchema,
} from "../../src/scenario/eva/gold_trace.ts";
import { EXIT_TRANSFER } from "../../src/domains/common.ts";
import { DATA_ROOT } from "./_data_root.ts";
import { loadScenarioText } from "../../src/scenario/files.ts";
import { scaffoldText } from "../../src/scenario/scaffold.ts";

const root = new DataRoot(DATA_ROOT);
const present = root.exists("eva_airline/eva_airline_dataset.jsonl") && root.exists(TRACE_FILE);

type Json = unknown;

interface Counts {
  results: number;
  exact: number;
  templated: number;
  aliased: number;
  transferStubs: number;
}

/** A field where our result and the trace differ. */
interface Difference {
  path: (string | number)[];
  ours: Json;
  trace: Json;
}

/** Field-by-field comparison; strings the trace templated match their template. */
function compare(
  ours: Json,
  trace: Json,
  raw: Json,
  path: (string | number)[],
  templated: { n: number },
  out: Difference[],
): void {
  if (typeof ours === "string" && typeof trace === "string" && ours !== trace) {
    if (typeof raw === "string" && hasPlaceholder(raw) && templatePattern(raw).test(ours)) {
      templated.n++;
      return;
    }
  }
  const isObj = (v: Json) => typeof v === "object" && v !== null;
  if (!isObj(ours) || !isObj(trace) || Array.isArray(ours) !== Array.isArray(trace)) {
    if (ours !== trace) out.push({ path, ours, trace });
    return;
  }
  const o = ours as Record<string, Json>;
  const t = trace as Record<string, Json>;
  const r = (isObj(raw) ? raw : {}) as Record<string, Json>;
  const keys = Array.isArray(o)
    ? Array.from({ length: Math.max(o.length, (t as unknown as Json[]).length) }, (_, i) => i)
    : [...new Set([...Object.keys(o), ...Object.keys(t)])];
  for (const k of keys) {
    compare(o[k as string], t[k as string], r[k as string], [...path, k], templated, out);
  }
}

Deno.test({
  name: "eva_airline: 50 gold traces replay to the expected hash with matching tool results",
  ignore: !present,
  async fn() {
    const { scenarios, problems } = await suite.load(root);
    assert.deepEqual(problems, []);
    assert.equal(scenarios.length, 50);
    const traces = new Map(
      (root.json(TRACE_FILE) as unknown[]).map((t) => {
        const r = TraceRecordSchema.parse(t);
        return [r.id, goldSteps(r)];
      }),
    );
    const counts: Counts = { results: 0, exact: 0, templated: 0, aliased: 0, transferStubs: 0 };
    let hashMatches = 0;
    const unexplained: string[] = [];
    for (const s of scenarios) {
      const id = s.source!.replace(/^eva:/, "");
      const steps = traces.get(id)!;
      assert.equal(s.expect.reference_actions!.length, steps.length, s.name);
      const { env } = await openEnvironment(root, s, "conformance");
      const aliasCandidates: { step: number; d: Difference }[] = [];
      steps.forEach((step, i) => {
        const r = env.call("agent", step.name, step.arguments);
        counts.results++;
        if (
          step.name === "transfer_to_agent" &&
          JSON.stringify(step.response) === '{"status":"transfer_initiated"}'
        ) {
          if (r.ok && r.exit === EXIT_TRANSFER) counts.transferStubs++;
          else unexplained.push(`${s.name} #${i} transfer_to_agent: ${JSON.stringify(r.result)}`);
          return;
        }
        const templated = { n: 0 };
        const diffs: Difference[] = [];
        compare(r.result, step.response, step.rawResponse, [], templated, diffs);
        counts.templated += templated.n;
        if (diffs.length === 0 && templated.n === 0) counts.exact++;
        for (const d of diffs) {
          const [, , seg, seats] = d.path.slice(1);
          const aliasable = step.name === "search_rebooking_options" && d.path[0] === "options" &&
            d.path[2] === "segments" && d.path[4] === "available_seats" &&
            typeof seg === "number" &&
            typeof seats === "string";
          if (aliasable) aliasCandidates.push({ step: i, d });
          else {
            unexplained.push(
              `${s.name} #${i} ${step.name} ${d.path.join(".")}: ours ${
                JSON.stringify(d.ours)
              }, trace ${JSON.stringify(d.trace)}`,
            );
          }
        }
      });
      // Seat counts logged by reference show the world after the last call.
      const journeys = env.db.journeys as Record<
        string,
        { segments: { available_seats: Record<string, number> }[] }
      >;
      for (const { step, d } of aliasCandidates) {
        const [, option, , segment, , fareClass] = d.path as [
          string,
          number,
          string,
          number,
          string,
          string,
        ];
        const journeyId =
          ((steps[step]!.response as { options: { journey_id: string }[] }).options[option]!)
            .journey_id;
        const final = journeys[journeyId]?.segments[segment]?.available_seats[fareClass];
        if (final === d.trace) counts.aliased++;
        else {
          unexplained.push(
            `${s.name} #${step} seats ${
              d.path.join(".")
            }: ours ${d.ours}, trace ${d.trace}, final ${final}`,
          );
        }
      }
      if (env.hashes().db_sha256 === s.expect.db_sha256) hashMatches++;
      else {unexplained.push(
          `${s.name}: final hash ${env.hashes().db_sha256} != ${s.expect.db_sha256}`,
        );}
    }
    console.log(
      `eva_airline: ${hashMatches}/${scenarios.length} final hashes match; ${counts.results} tool results: ` +
        `${counts.exact} identical, ${
          counts.results - counts.exact - counts.transferStubs
        } with explained ` +
        `differences (${counts.templated} templated name fields, ${counts.aliased} seat counts logged by ` +
        `reference), ${counts.transferStubs} transfer stubs`,
    );
    assert.deepEqual(unexplained, []);
    assert.equal(hashMatches, 50);
  },
});

Deno.test({
  name: "eva_airline: every scaffolded scenario file loads back to the suite's scenario",
  ignore: !present,
  async fn() {
    const { scenarios } = await suite.load(root);
    for (const s of scenarios) {
      const loaded = await loadScenarioText(`${s.name}.yaml`, scaffoldText(s));
      assert.deepEqual(loaded.problems, [], s.name);
      assert.deepEqual(loaded.scenarios, [s], s.name);
    }
  },
});

Deno.test({
  name: "eva_airline: gold lists the reference calls that fail on the data itself",
  ignore: !present,
  async fn() {
    const { scenarios } = await suite.load(root);
    const failing: string[] = [];
    for (const s of scenarios) {
      const gold = await suite.gold(root, s);
      assert.equal(gold.expected_db_sha256, s.expect.db_sha256);
      for (const e of gold.errors ?? []) {
        failing.push(
          `${s.name} #${e.index} ${e.name} ${(e.result as { error_type: string }).error_type}`,
        );
      }
    }
    // Both gold traces look up a disruption that the world does not have, and say so.
    assert.deepEqual(failing, [
      "eva_airline__escalation_edge_case #3 get_disruption_info not_found",
      "eva_airline__7_3_1 #1 get_disruption_info not_found",
    ]);
  },
});
