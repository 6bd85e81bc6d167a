import assert from "node:assert/strict";
import { Environment } from "../../env/environment.ts";
import { deepFreeze } from "../../env/deep_freeze.ts";
import { domain } from "../../domains/eva_itsm/mod.ts";
import { replayRebinding } from "./gold_rebind.ts";

const world = {
  _current_date: "2026-03-10",
  employees: { EMP000001: { employee_id: "EMP000001", phone_last_four: "1234" } },
  tickets: {},
};

Deno.test("a trace's counter ids are rebound to the ids today's tools mint, in every later call", () => {
  const env = new Environment(domain, { db: deepFreeze(structuredClone(world)) }, {
    today: "2026-03-10",
    seed: "0",
  });
  const calls = replayRebinding(env, [
    {
      name: "verify_employee_auth",
      arguments: { employee_id: "EMP000001", phone_last_four: "1234" },
      recorded: { status: "success" },
    },
    {
      name: "create_incident_ticket",
      arguments: {
        employee_id: "EMP000001",
        category: "service_outage",
        urgency: "low",
        affected_system: "vpn",
        troubleshooting_completed: false,
      },
      // The trace's counter id, and a message quoting it (messages are not rebound).
      recorded: {
        status: "success",
        ticket_number: "INC0048271",
        message: "Ticket created: INC0048271",
      },
    },
    {
      name: "assign_sla_tier",
      arguments: { ticket_number: "INC0048271", sla_tier: "tier_3" },
      recorded: { status: "success" },
    },
  ]);
  const minted = Object.keys(env.db.tickets as object)[0]!;
  assert.match(minted, /^INC[0-9a-f]{12}$/);
  assert.deepEqual(calls[2], {
    name: "assign_sla_tier",
    arguments: { ticket_number: minted, sla_tier: "tier_3" },
  });
  assert.equal(
    (env.db.tickets as Record<string, { sla_tier: string }>)[minted]!.sla_tier,
    "tier_3",
  );
});
