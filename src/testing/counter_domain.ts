/**
 * A tiny domain for tests of the harness itself: a counter and a log.
 *
 * @module
 */
import { z } from "zod";
import type { Domain, ToolDef } from "../domains/domain.ts";
import { endConversationTool } from "../domains/common.ts";
import type { ScenarioInput } from "../scenario/scenario.ts";
import { ScenarioSchema } from "../scenario/scenario.ts";
import { dbHash } from "../canonical/hash.ts";
import { Environment } from "../env/environment.ts";
import type { CallSetup } from "../bridge/call.ts";
import { toolSpecs } from "../bridge/tool_specs.ts";

const add: ToolDef<{ n: number }> = {
  name: "add",
  side: "agent",
  kind: "write",
  description: "Add n to the counter.",
  args: z.object({ n: z.number().int() }).strict(),
  run({ n }, ctx) {
    const db = ctx.db as { count: number };
    db.count += n;
    return { ok: true, result: { count: db.count }, record: { action_type: "add", n } };
  },
};

const read: ToolDef<Record<string, never>> = {
  name: "read",
  side: "agent",
  kind: "read",
  description: "Read the counter.",
  args: z.object({}).strict(),
  run: (_a, ctx) => ({ ok: true, result: { count: (ctx.db as { count: number }).count } }),
};

const press: ToolDef<{ button: string }> = {
  name: "press_button",
  side: "user",
  kind: "write",
  description: "Press a button on the caller's device.",
  args: z.object({ button: z.string() }).strict(),
  run({ button }, ctx) {
    (ctx.db as { pressed: string[] }).pressed.push(button);
    return { ok: true, result: "pressed", record: { action_type: "press_button", button } };
  },
};

export const counterDomain: Domain = {
  id: "test_counter",
  tools: [add, read, press, endConversationTool],
  validationError: (tool, error) => ({
    status: "error",
    error_type: "validation_error",
    message: `${tool.name}: ${error.issues[0]?.message ?? "invalid"}`,
  }),
};

/** A fresh counter world: the count at 0, no button pressed. */
export function counterEnv(): Environment {
  return new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
}

/** A side's setup of a counter call, offered every tool the domain gives that side. */
export function counterSetup(side: "agent" | "user"): CallSetup {
  return {
    side,
    scenario: "t",
    domain: "test_counter",
    prompt: "",
    tools: toolSpecs(counterDomain, side, []),
    seed: "s",
  };
}

/** A counter scenario whose gold adds 2 then 3 and presses the caller's "ok" button. */
export function counterScenario(overrides: Partial<ScenarioInput> = {}) {
  return ScenarioSchema.parse({
    name: "test_counter__add_five",
    domain: "test_counter",
    world: { db: { inline: { count: 0 } }, user_db: { inline: { pressed: [] } } },
    agent: { prompt: "You keep a counter.", tools: [] },
    user: {
      prompt: "You want the counter at five.",
      opening: "Please add five.",
      known_info: { "Account code": "ZX81" },
    },
    expect: {
      db_sha256: dbHash({ count: 5 }),
      user_db_sha256: dbHash({ pressed: ["ok"] }),
      reference_actions: [
        { side: "agent", name: "add", arguments: { n: 2 } },
        { side: "agent", name: "add", arguments: { n: 3 } },
        { side: "user", name: "press_button", arguments: { button: "ok" } },
      ],
    },
    success_signals: ["db_state_match", "clean_exit"],
    ...overrides,
  });
}
