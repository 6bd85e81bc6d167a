import { deepEqual as assertEquals, equal, ok, rejects } from "node:assert/strict";
import { memoryIo } from "../cli/io.ts";
import { command } from "./tools.ts";

Deno.test("tools --domain tau2_retail lists 15+ tools with their arguments and side", async () => {
  const io = memoryIo();
  equal(await command.main(["--domain", "tau2_retail"], io), 0);
  const text = io.stdout.join("\n");
  const rows = io.stdout.filter((l) => /^(agent|user) +\w+\(/.test(l));
  ok(rows.length >= 15, `${rows.length} tools`);
  ok(
    text.includes(
      "agent cancel_pending_order(order_id: string, reason: string)  [write]",
    ),
    text,
  );
  ok(text.includes("agent end_conversation()  [system, end call]"));
  // Descriptions come along, indented under their tool.
  ok(/\n {6}Cancel a pending order/.test(text));
});

Deno.test("tools --json gives each tool's arguments as JSON Schema", async () => {
  const io = memoryIo();
  equal(await command.main(["--domain", "tau2_telecom", "--json"], io), 0);
  const tools = io.stdout.map((l) => JSON.parse(l));
  ok(tools.some((t) => t.side === "user"), "the caller's phone tools too");
  const t = tools.find((t) => t.name === "get_details_by_id");
  ok(t, tools.map((t) => t.name).join(", "));
  equal(t.parameters.type, "object");
  assertEquals(t.parameters.required, ["id"]);
  await rejects(
    command.main(["--domain", "tau2_retial"], memoryIo()),
    /did you mean "tau2_retail"/,
  );
  await rejects(command.main([], memoryIo()), /required/);
});

Deno.test("tools --domain tau2_banking_knowledge lists the discoverable tools too, with their arguments", async () => {
  const io = memoryIo();
  equal(await command.main(["--domain", "tau2_banking_knowledge"], io), 0);
  const text = io.stdout.join("\n");
  ok(text.includes("agent KB_search(query: string)  [read]"), text);
  ok(text.includes("48 discoverable tools"), text);
  ok(
    text.includes(
      "agent close_bank_account_7392(account_id: string, reason?: string, waive_early_closure_fee?: boolean)  [write, via call_discoverable_agent_tool]",
    ),
    text,
  );
  ok(
    text.includes(
      "user  deposit_check_3847(account_id: string, check_amount: number)  [write, via call_discoverable_user_tool]",
    ),
  );
});
