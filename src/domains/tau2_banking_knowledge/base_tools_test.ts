import assert from "node:assert/strict";
import { Environment } from "../../env/environment.ts";
import { domain } from "./mod.ts";

const world = () => ({
  db: {
    users: { data: { u1: { name: "Ada Byron", user_id: "u1", email: "ada@x.com" } }, notes: "" },
    accounts: {
      data: {
        chk1: {
          account_id: "chk1",
          user_id: "u1",
          class: "checking",
          status: "OPEN",
          current_holdings: "100.00",
        },
      },
      notes: "",
    },
    credit_card_transaction_history: {
      data: { t1: { transaction_id: "t1", user_id: "u1", rewards_earned: "10 points" } },
      notes: "",
    },
  },
});
const open = () => new Environment(domain, world(), { today: "2025-11-14", seed: "t" });
const text = (r: { result: unknown }) => String(r.result);
const tables = (env: Environment) => env.db as Record<string, { data: Record<string, unknown> }>;

Deno.test("an agent tool answers only once unlocked; a write is logged, a read only when the task's gold reads it", () => {
  const env = open();
  const call = (name: string, args: unknown) =>
    text(env.call("agent", "call_discoverable_agent_tool", {
      agent_tool_name: name,
      arguments: JSON.stringify(args),
    }));
  assert.match(
    call("get_all_user_accounts_by_user_id_3847", { user_id: "u1" }),
    /has not been unlocked/,
  );
  assert.match(
    text(env.call("agent", "unlock_discoverable_agent_tool", { agent_tool_name: "nope_1" })),
    /^Error: Unknown agent tool 'nope_1'/,
  );
  const unlocked = text(
    env.call("agent", "unlock_discoverable_agent_tool", {
      agent_tool_name: "get_all_user_accounts_by_user_id_3847",
    }),
  );
  assert.match(unlocked, /^Tool unlocked: get_all_user_accounts_by_user_id_3847\n/);
  assert.match(unlocked, /\n {2}- user_id: string \(required\) - /);
  assert.match(
    call("get_all_user_accounts_by_user_id_3847", { user_id: "u1" }),
    /1\. Record ID: chk1/,
  );
  // A read the gold does not make leaves no trace in the bank.
  assert.equal(tables(env).agent_discoverable_tools, undefined);

  env.call("agent", "unlock_discoverable_agent_tool", {
    agent_tool_name: "update_transaction_rewards_3847",
  });
  assert.match(
    call("update_transaction_rewards_3847", { transaction_id: "t1" }),
    /^Error: Invalid arguments: KnowledgeTools\.update_transaction_rewards_3847\(\) missing 1 required positional argument: 'new_rewards_earned'$/,
  );
  assert.match(
    call("update_transaction_rewards_3847", {
      transaction_id: "t1",
      new_rewards_earned: "9",
      x: 1,
    }),
    /got an unexpected keyword argument 'x'$/,
  );
  assert.match(
    call("update_transaction_rewards_3847", {
      transaction_id: "t1",
      new_rewards_earned: "12 points",
    }),
    /^Transaction rewards updated successfully\./,
  );
  const logged = Object.values(tables(env).agent_discoverable_tools!.data);
  assert.deepEqual(logged, [{ tool_name: "update_transaction_rewards_3847", status: "CALLED" }]);
});

Deno.test("log_reads_of makes the gold's reads logged; update_db merges a task's data", () => {
  const env = open();
  const init = env.initialize([
    {
      side: "agent",
      func_name: "log_reads_of",
      arguments: { tools: ["get_all_user_accounts_by_user_id_3847"] },
    },
    {
      side: "agent",
      func_name: "update_db",
      arguments: {
        data: { task_config: { data: { dispute_settings: { auto_resolve_disputes: true } } } },
      },
    },
  ]);
  assert.deepEqual(init.errors, []);
  env.call("agent", "unlock_discoverable_agent_tool", {
    agent_tool_name: "get_all_user_accounts_by_user_id_3847",
  });
  env.call("agent", "call_discoverable_agent_tool", {
    agent_tool_name: "get_all_user_accounts_by_user_id_3847",
    arguments: '{"user_id": "u1"}',
  });
  assert.equal(Object.keys(tables(env).agent_discoverable_tools!.data).length, 1);
  assert.deepEqual(tables(env).task_config, {
    data: { dispute_settings: { auto_resolve_disputes: true } },
    notes: "",
  });
});

Deno.test("the caller's tools act on the bank's database; a handed-over tool must be given first", () => {
  const env = open();
  const use = () =>
    text(env.call("user", "call_discoverable_user_tool", {
      discoverable_tool_name: "deposit_check_3847",
      arguments: '{"account_id": "chk1", "check_amount": 50}',
    }));
  assert.match(use(), /^Error: Tool 'deposit_check_3847' has not been given to you by the agent\./);
  const given = text(env.call("agent", "give_discoverable_user_tool", {
    discoverable_tool_name: "deposit_check_3847",
    arguments: '{"account_id": "chk1", "check_amount": 50}',
  }));
  assert.match(given, /\nArguments: \{\n {2}"account_id": "chk1",\n {2}"check_amount": 50\n\}\n/);
  const deposited = use();
  assert.match(deposited, /"check_amount": 50\.0/);
  assert.match(deposited, /Previous Balance: \$100\.00\n {2}- New Balance: \$150\.00$/);
  assert.equal(
    (tables(env).accounts!.data.chk1 as { current_holdings: string }).current_holdings,
    "$150.00",
  );
  assert.equal(env.userDb, undefined);
  assert.match(
    text(env.call("user", "call_discoverable_user_tool", {
      discoverable_tool_name: "deposit_check_3847",
      arguments: '{"account_id": "chk1"}',
    })),
    /^Error: Missing required parameter: check_amount$/,
  );
});

Deno.test("query tools list records as the reference prints them", () => {
  const env = open();
  assert.equal(
    text(env.call("agent", "get_user_information_by_id", { user_id: "u1" })),
    "Found 1 record(s) in 'users':\n\n1. Record ID: u1\n   name: Ada Byron\n   user_id: u1\n   email: ada@x.com\n",
  );
  assert.equal(
    text(env.call("agent", "get_user_information_by_id", { user_id: "u9" })),
    "No records found in 'users'.",
  );
});
