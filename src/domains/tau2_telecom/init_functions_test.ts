import assert from "node:assert/strict";
import { agentWorld, phoneOf, phoneWorld, recordsOf, testEnvironment, TODAY } from "./_testing.ts";
import { findBill, findCustomer, findLine } from "./agent_db.ts";
import { initFunctions } from "./init_functions.ts";
import type { InitAction } from "../../env/environment.ts";

const user = (func_name: string, args: Record<string, unknown> = {}): InitAction => ({
  side: "user",
  func_name,
  arguments: args,
});
const agent = (func_name: string, args: Record<string, unknown> = {}): InitAction => ({
  side: "agent",
  func_name,
  arguments: args,
});

function initialized(...actions: InitAction[]) {
  const env = testEnvironment();
  const outcome = env.initialize(actions);
  return { env, outcome, phone: phoneOf(env), db: recordsOf(env) };
}

Deno.test("there are 16 phone and 4 record initialisation functions", () => {
  assert.equal(Object.keys(initFunctions.user).length, 16);
  assert.deepEqual(Object.keys(initFunctions.agent).sort(), [
    "disable_roaming",
    "enable_roaming",
    "set_data_usage",
    "suspend_line_for_overdue_bill",
  ]);
});

Deno.test("set_user_info and set_user_location set the caller's surroundings", () => {
  const { phone, outcome } = initialized(
    user("set_user_info", { name: "Ada", phone_number: "555-000-1001" }),
    user("set_user_location", { abroad: true }),
  );
  assert.deepEqual(outcome, { success: true, errors: [] });
  assert.equal(phone.surroundings.name, "Ada");
  assert.equal(phone.surroundings.phone_number, "555-000-1001");
  assert.equal(phone.surroundings.is_abroad, true);
});

Deno.test("set_network_mode_preference and simulate_network_search re-derive the network", () => {
  const { phone } = initialized(user("set_network_mode_preference", { mode: "2g_only" }));
  assert.equal(phone.device.network_technology_connected, "2G");
  assert.equal(phone.device.network_signal_strength, "poor");
  const bad = initialized(user("set_network_mode_preference", { mode: "6G" }));
  assert.equal(bad.outcome.success, false);
  assert.match(bad.outcome.errors[0]!, /^set_network_mode_preference: bad arguments/);
  // The default phone claims "good" 5G; a search corrects it to the location's signal.
  assert.equal(initialized().phone.device.network_signal_strength, "good");
  assert.equal(
    initialized(user("simulate_network_search")).phone.device.network_signal_strength,
    "excellent",
  );
});

Deno.test("turn_airplane_mode_on cuts the radio, Wi-Fi and VPN", () => {
  const env = testEnvironment({
    user_db: (() => {
      const p = phoneWorld("555-000-1001");
      Object.assign(p.device, {
        wifi_enabled: true,
        wifi_connected: true,
        wifi_ssid: "Home",
        vpn_connected: true,
      });
      p.device.vpn_details = { server_address: "x", protocol: "y", server_performance: "good" };
      return p;
    })(),
  });
  env.initialize([user("turn_airplane_mode_on")]);
  const d = phoneOf(env).device;
  assert.deepEqual(
    [
      d.airplane_mode,
      d.wifi_connected,
      d.wifi_ssid,
      d.wifi_signal_strength,
      d.vpn_connected,
      d.vpn_details,
    ],
    [true, false, null, "none", false, null],
  );
  assert.equal(d.wifi_enabled, true);
  assert.equal(d.network_connection_status, "no_service");
});

Deno.test("unseat_sim_card and lock_sim_card leave the phone without service", () => {
  const unseated = initialized(user("unseat_sim_card")).phone.device;
  assert.deepEqual([unseated.sim_card_missing, unseated.network_connection_status], [
    true,
    "no_service",
  ]);
  const pin = initialized(user("lock_sim_card", { mode: "pin" })).phone.device;
  assert.deepEqual([pin.sim_card_status, pin.network_connection_status], [
    "locked_pin",
    "no_service",
  ]);
  assert.equal(
    initialized(user("lock_sim_card", { mode: "puk" })).phone.device.sim_card_status,
    "locked_puk",
  );
  assert.equal(initialized(user("lock_sim_card", { mode: "pattern" })).outcome.success, false);
});

Deno.test("turn_data_off, roaming and data saver set their device switches", () => {
  const { phone } = initialized(
    user("turn_data_off"),
    user("turn_roaming_on"),
    user("turn_data_saver_mode_on"),
  );
  assert.deepEqual(
    [phone.device.data_enabled, phone.device.roaming_enabled, phone.device.data_saver_mode],
    [false, true, true],
  );
  assert.equal(
    initialized(user("turn_roaming_on"), user("turn_roaming_off")).phone.device.roaming_enabled,
    false,
  );
});

Deno.test("break_apn_settings kills service; break_apn_mms_setting only clears the MMSC", () => {
  const broken = initialized(user("break_apn_settings")).phone.device;
  assert.deepEqual([broken.active_apn_settings.apn_name, broken.network_connection_status], [
    "broken",
    "no_service",
  ]);
  const mms = initialized(user("break_apn_mms_setting")).phone.device;
  assert.deepEqual([mms.active_apn_settings.mmsc_url, mms.active_apn_settings.apn_name], [
    null,
    "internet",
  ]);
});

Deno.test("set_wifi_calling sets MMS over Wi-Fi only when given", () => {
  const both =
    initialized(user("set_wifi_calling", { enabled: true, mms_over_wifi: true })).phone.device;
  assert.deepEqual([both.wifi_calling_enabled, both.wifi_calling_mms_over_wifi], [true, true]);
  const only = initialized(user("set_wifi_calling", { enabled: true })).phone.device;
  assert.deepEqual([only.wifi_calling_enabled, only.wifi_calling_mms_over_wifi], [true, false]);
  const nullMms =
    initialized(user("set_wifi_calling", { enabled: false, mms_over_wifi: null })).phone.device;
  assert.equal(nullMms.wifi_calling_mms_over_wifi, false);
});

Deno.test("break_vpn connects a VPN with a poor server", () => {
  const d = initialized(user("break_vpn")).phone.device;
  assert.equal(d.vpn_connected, true);
  assert.deepEqual(d.vpn_details, {
    server_address: "192.168.1.1",
    protocol: "OpenVPN",
    server_performance: "poor",
  });
});

Deno.test("remove_app_permission clears a permission; unknown app or permission is a no-op", () => {
  const { phone, outcome } = initialized(
    user("remove_app_permission", { app_name: "messaging", permission: "SMS" }),
    user("remove_app_permission", { app_name: "camera", permission: "sms" }),
    user("remove_app_permission", { app_name: "messaging", permission: "location" }),
  );
  assert.equal(outcome.success, true);
  assert.deepEqual(phone.device.app_statuses.messaging!.permissions, {
    sms: false,
    storage: true,
    phone: true,
    network: false,
  });
  assert.equal(Object.keys(phone.device.app_statuses.messaging!.permissions).length, 4);
});

Deno.test("enable_roaming, disable_roaming and set_data_usage change the customer's line", () => {
  const { db, outcome } = initialized(
    agent("enable_roaming", { customer_id: "C1", line_id: "L1" }),
    agent("set_data_usage", { customer_id: "C1", line_id: "L1", data_used_gb: 5.1 }),
    agent("disable_roaming", { customer_id: "C2", line_id: "L3" }),
  );
  assert.equal(outcome.success, true);
  assert.equal(findLine(db, "L1")!.roaming_enabled, true);
  assert.equal(findLine(db, "L1")!.data_used_gb, 5.1);
  assert.equal(findLine(db, "L3")!.roaming_enabled, false);
  const wrong = initialized(agent("enable_roaming", { customer_id: "C2", line_id: "L1" }));
  assert.deepEqual(wrong.outcome.errors, [
    "enable_roaming: line 'L1' not found for customer 'C2'",
  ]);
});

Deno.test("suspend_line_for_overdue_bill adds last month's overdue bill and suspends from today", () => {
  const { db, outcome } = initialized(agent("suspend_line_for_overdue_bill", {
    customer_id: "C1",
    line_id: "L1",
    new_bill_id: "B900",
    contract_ended: false,
  }));
  assert.equal(outcome.success, true);
  assert.deepEqual(findBill(db, "B900"), {
    bill_id: "B900",
    customer_id: "C1",
    period_start: "2025-01-01",
    period_end: "2025-01-31",
    issue_date: "2025-01-01",
    total_due: 30,
    due_date: "2025-01-15",
    status: "Overdue",
    line_items: [{
      description: "Charge for line L1",
      amount: 30,
      date: TODAY,
      item_type: "Charge",
    }],
  });
  assert.deepEqual(findCustomer(db, "C1")!.bill_ids, ["B1", "B2", "B3", "B900"]);
  const line = findLine(db, "L1")!;
  assert.deepEqual([line.status, line.suspension_start_date, line.contract_end_date], [
    "Suspended",
    TODAY,
    "2026-06-30",
  ]);
});

Deno.test("suspend_line_for_overdue_bill can end the contract last month, and checks its inputs", () => {
  const ended = initialized(agent("suspend_line_for_overdue_bill", {
    customer_id: "C1",
    line_id: "L1",
    new_bill_id: "B900",
    contract_ended: true,
  }));
  assert.equal(findLine(ended.db, "L1")!.contract_end_date, "2025-01-31");
  // The line must be active, and the customer may not already have an overdue bill.
  const suspended = initialized(
    agent("suspend_line_for_overdue_bill", { customer_id: "C1", line_id: "L2", new_bill_id: "B9" }),
  );
  assert.match(suspended.outcome.errors[0]!, /must be active/);
  const db = agentWorld();
  findBill(db, "B2")!.status = "Overdue";
  const overdue = testEnvironment({ db }).initialize([
    agent("suspend_line_for_overdue_bill", { customer_id: "C1", line_id: "L1", new_bill_id: "B9" }),
  ]);
  assert.deepEqual(overdue.errors, [
    "suspend_line_for_overdue_bill: customer 'C1' already has an overdue bill (B2)",
  ]);
});

Deno.test("initialisation collects errors, keeps going and never rolls back", () => {
  const { outcome, phone } = initialized(
    user("turn_data_off"),
    user("no_such_function"),
    user("set_user_location", { abroad: true, extra: 1 }),
    user("set_user_location"),
    agent("set_data_usage", { customer_id: "C1", line_id: "L1" }),
    user("turn_roaming_on"),
  );
  assert.equal(outcome.success, false);
  assert.equal(outcome.errors.length, 4);
  assert.match(outcome.errors[0]!, /no_such_function: unknown user initialization function/);
  assert.match(outcome.errors[1]!, /set_user_location: bad arguments/);
  assert.equal(phone.device.data_enabled, false);
  assert.equal(phone.device.roaming_enabled, true);
  assert.equal(phone.surroundings.is_abroad, false);
});

Deno.test("agent initialisation on a database without records reports, never throws", () => {
  const env = testEnvironment({ db: {} });
  const out = env.initialize([
    agent("enable_roaming", { customer_id: "C1", line_id: "L1" }),
    agent("suspend_line_for_overdue_bill", { customer_id: "C1", line_id: "L1", new_bill_id: "B1" }),
  ]);
  assert.equal(out.errors.length, 2);
});
