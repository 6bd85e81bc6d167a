import assert from "node:assert/strict";
import { openEnvironment } from "../scenario/open_environment.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { selfWorldSetup } from "./run_trial.ts";
import { toolSpecs } from "../bridge/tool_specs.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

async function setupOf(domain: string) {
  const { scenarios } = await selectScenarios(root, { domains: [domain] });
  const scenario = scenarios[0]!;
  const { env } = await openEnvironment(root, scenario, "s");
  const tools = toolSpecs(env.domain, "agent", scenario.agent.tools);
  return { scenario, setup: selfWorldSetup(root, scenario, env, tools, "s") };
}

Deno.test("self world: tau2 retail tools go by class name, the world by db_path", async () => {
  const { setup } = await setupOf("tau2_retail");
  assert.ok("GetOrderDetailsTool" in setup.tools, JSON.stringify(Object.keys(setup.tools)));
  assert.ok("EndConversationTool" in setup.tools);
  assert.deepEqual(setup.shared_state_init, { db_path: "tau2_retail/db.json" });
});

Deno.test("self world: telecom tools keep their snake_case names; the first sync's agent delta is sent", async () => {
  const { scenario, setup } = await setupOf("tau2_telecom");
  assert.ok("get_customer_by_phone" in setup.tools, JSON.stringify(Object.keys(setup.tools)));
  assert.ok("EndConversationTool" in setup.tools);
  assert.deepEqual(setup.shared_state_init, { db_path: "tau2_telecom/db.json" });
  assert.deepEqual(
    setup.actions,
    scenario.initialization_actions.filter((a) => a.side === "agent"),
  );
  assert.equal(setup.include_db, scenario.expect.db_state_assertions.length > 0);
  // The delta, when there is one, is an object of dotted paths.
  for (const key of Object.keys(setup.sync_delta ?? {})) assert.match(key, /^[\w.[\]-]+$/);
});
