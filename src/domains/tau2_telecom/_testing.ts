/**
 * Small synthetic telecom worlds for the tests beside the code (no benchmark data):
 * two customers, three lines, a handful of bills, and the default phone.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { Environment } from "../../env/environment.ts";
import {
  type TelecomDb,
  TelecomDbSchema,
  type TelecomUserDb,
  TelecomUserDbSchema,
} from "./data_model.ts";
import { domain } from "./mod.ts";

export const TODAY = "2025-02-25";

/** An agent database: customer C1 owns lines L1 (Active), L2 (Suspended); C2 owns L3. */
export function agentWorld(): TelecomDb {
  return TelecomDbSchema.parse({
    plans: [
      {
        plan_id: "P1",
        name: "Small",
        data_limit_gb: 5,
        price_per_month: 30,
        data_refueling_price_per_gb: 2.5,
      },
      {
        plan_id: "P2",
        name: "Large",
        data_limit_gb: 50,
        price_per_month: 70,
        data_refueling_price_per_gb: 0.1,
      },
    ],
    customers: [
      {
        customer_id: "C1",
        full_name: "Ada Testcase",
        date_of_birth: "1990-01-02",
        email: "ada@example.test",
        phone_number: "555-000-0001",
        address: { street: "1 Test Way", city: "Testville", state: "TS", zip_code: "00001" },
        account_status: "Active",
        line_ids: ["L1", "L2"],
        bill_ids: ["B1", "B2", "B3"],
      },
      {
        customer_id: "C2",
        full_name: "Bo Example",
        date_of_birth: "1980-03-04",
        email: "bo@example.test",
        phone_number: "555-000-0002",
        address: { street: "2 Test Way", city: "Testville", state: "TS", zip_code: "00002" },
        account_status: "Active",
        line_ids: ["L3"],
        bill_ids: ["B4"],
      },
    ],
    lines: [
      {
        line_id: "L1",
        phone_number: "555-000-1001",
        status: "Active",
        plan_id: "P1",
        device_id: "D1",
        data_used_gb: 1.5,
        contract_end_date: "2026-06-30",
      },
      { line_id: "L2", phone_number: "555-000-1002", status: "Suspended", plan_id: "P1" },
      {
        line_id: "L3",
        phone_number: "555-000-1003",
        status: "Active",
        plan_id: "P2",
        roaming_enabled: true,
      },
    ],
    bills: [
      _bill("B1", "C1", "2025-01-05", "Paid", 30),
      _bill("B2", "C1", "2025-02-05", "Issued", 32.5),
      _bill("B3", "C1", "2025-03-01", "Draft", 0),
      _bill("B4", "C2", "2025-02-05", "Issued", 70),
    ],
    devices: [
      { device_id: "D1", device_type: "phone", model: "Test Phone", is_esim_capable: true },
    ],
  });
}

function _bill(id: string, customer: string, issued: string, status: string, total: number) {
  return {
    bill_id: id,
    customer_id: customer,
    period_start: issued,
    period_end: issued,
    issue_date: issued,
    total_due: total,
    due_date: issued,
    status,
    line_items: total
      ? [{ description: "Plan", amount: total, date: issued, item_type: "Plan Charge" }]
      : [],
  };
}

/** The default phone, optionally belonging to a number. */
export function phoneWorld(phoneNumber: string | null = null): TelecomUserDb {
  const phone = TelecomUserDbSchema.parse({});
  phone.surroundings.phone_number = phoneNumber;
  return phone;
}

/** An Environment on the synthetic worlds, the phone being line L1's. */
export function testEnvironment(
  world: { db?: Db; user_db?: Db } = {},
  seed = "test",
): Environment {
  return new Environment(domain, {
    db: world.db ?? agentWorld(),
    user_db: world.user_db ?? phoneWorld("555-000-1001"),
  }, { today: TODAY, seed });
}

/** The phone of an Environment, typed. */
export function phoneOf(env: Environment): TelecomUserDb {
  return env.userDb as TelecomUserDb;
}

/** The agent database of an Environment, typed. */
export function recordsOf(env: Environment): TelecomDb {
  return env.db as TelecomDb;
}
