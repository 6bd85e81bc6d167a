/**
 * The 20 telecom initialisation functions that set a task's starting state: 16 on
 * the caller's phone, 4 on the agent's records. Each mutates its side's draft in
 * place and throws to report an error (the Environment collects it and goes on).
 * A missing or unknown argument is an error, as with the reference's Python
 * signatures; argument types are checked too, which the reference leaves to chance.
 *
 * Determinism: the overdue bill `suspend_line_for_overdue_bill` creates is dated
 * from the scenario's "today" (`ctx.today`), never the machine's clock.
 *
 * @module
 */
import { z } from "zod";
import type { InitFunction, Side, ToolContext } from "../domain.ts";
import { customerLine, findBill, findCustomer, findPlan, idsOf } from "./agent_db.ts";
import { addDays, firstOfMonth, lastOfMonth } from "./calendar.ts";
import {
  defaultVpnDetails,
  NETWORK_MODE_PREFERENCES,
  type TelecomDb,
  type TelecomUserDb,
} from "./data_model.ts";
import { laxFloat } from "./lax_numbers.ts";
import { simulateNetworkSearch } from "./network_search.ts";

function init<A, D>(
  args: z.ZodType<A>,
  fn: (db: D, args: A, ctx: ToolContext) => void,
): InitFunction {
  return (db, raw, ctx) => {
    const parsed = args.safeParse(raw);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) =>
        `${i.path.join(".") || "arguments"}: ${i.message}`
      );
      throw new Error(`bad arguments: ${why.join("; ")}`);
    }
    fn(db as D, parsed.data, ctx);
  };
}

const none = z.object({}).strict();

/** A phone change, then the network search. */
function phoneChange(change: (phone: TelecomUserDb) => void): InitFunction {
  return init<Record<string, never>, TelecomUserDb>(none, (phone) => {
    change(phone);
    simulateNetworkSearch(phone);
  });
}

export const userInitFunctions: Readonly<Record<string, InitFunction>> = {
  set_user_info: init(
    z.object({ name: z.string(), phone_number: z.string() }).strict(),
    (phone: TelecomUserDb, { name, phone_number }) => {
      phone.surroundings.name = name;
      phone.surroundings.phone_number = phone_number;
    },
  ),
  set_user_location: init(
    z.object({ abroad: z.boolean() }).strict(),
    (phone: TelecomUserDb, { abroad }) => {
      phone.surroundings.is_abroad = abroad;
    },
  ),
  set_network_mode_preference: init(
    z.object({ mode: z.enum(NETWORK_MODE_PREFERENCES) }).strict(),
    (phone: TelecomUserDb, { mode }) => {
      phone.device.network_mode_preference = mode;
      simulateNetworkSearch(phone);
    },
  ),
  simulate_network_search: phoneChange(() => {}),
  turn_airplane_mode_on: phoneChange(({ device }) => {
    device.airplane_mode = true;
    device.wifi_connected = false;
    device.wifi_ssid = null;
    device.wifi_signal_strength = "none";
    if (device.vpn_connected) {
      device.vpn_connected = false;
      device.vpn_details = null;
    }
  }),
  unseat_sim_card: phoneChange((phone) => {
    phone.device.sim_card_missing = true;
  }),
  lock_sim_card: init(
    z.object({ mode: z.enum(["pin", "puk"]) }).strict(),
    (phone: TelecomUserDb, { mode }) => {
      phone.device.sim_card_status = mode === "pin" ? "locked_pin" : "locked_puk";
      simulateNetworkSearch(phone);
    },
  ),
  turn_data_off: phoneChange((phone) => {
    phone.device.data_enabled = false;
  }),
  turn_roaming_on: phoneChange((phone) => {
    phone.device.roaming_enabled = true;
  }),
  turn_roaming_off: phoneChange((phone) => {
    phone.device.roaming_enabled = false;
  }),
  turn_data_saver_mode_on: init(none, (phone: TelecomUserDb) => {
    phone.device.data_saver_mode = true;
  }),
  break_apn_settings: phoneChange((phone) => {
    phone.device.active_apn_settings.apn_name = "broken";
  }),
  break_apn_mms_setting: init(none, (phone: TelecomUserDb) => {
    phone.device.active_apn_settings.mmsc_url = null;
  }),
  set_wifi_calling: init(
    z.object({ enabled: z.boolean(), mms_over_wifi: z.boolean().nullish() }).strict(),
    (phone: TelecomUserDb, { enabled, mms_over_wifi }) => {
      phone.device.wifi_calling_enabled = enabled;
      if (mms_over_wifi != null) phone.device.wifi_calling_mms_over_wifi = mms_over_wifi;
    },
  ),
  break_vpn: init(none, (phone: TelecomUserDb) => {
    const { device } = phone;
    if (!device.vpn_connected) {
      device.vpn_connected = true;
      device.vpn_details = defaultVpnDetails();
    }
    // A connected VPN without details gets some, so the slow server can be set.
    device.vpn_details = {
      ...(device.vpn_details ?? defaultVpnDetails()),
      server_performance: "poor",
    };
  }),
  remove_app_permission: init(
    z.object({ app_name: z.string(), permission: z.string() }).strict(),
    (phone: TelecomUserDb, { app_name, permission }) => {
      const apps = phone.device.app_statuses;
      const app = Object.hasOwn(apps, app_name) ? apps[app_name] : undefined;
      const key = permission.toLowerCase();
      const permissions = app?.permissions as Record<string, boolean> | undefined;
      // Unknown app or permission: nothing to remove, as the reference.
      if (permissions && Object.hasOwn(permissions, key)) permissions[key] = false;
    },
  ),
};

const customerAndLine = { customer_id: z.string(), line_id: z.string() };

/** The customer's line, or the init error the reference raises. */
function _line(db: TelecomDb, customerId: string, lineId: string) {
  const line = customerLine(db, customerId, lineId);
  if (!line) throw new Error(`line '${lineId}' not found for customer '${customerId}'`);
  return line;
}

export const agentInitFunctions: Readonly<Record<string, InitFunction>> = {
  enable_roaming: init(
    z.object(customerAndLine).strict(),
    (db: TelecomDb, { customer_id, line_id }) => {
      _line(db, customer_id, line_id).roaming_enabled = true;
    },
  ),
  disable_roaming: init(
    z.object(customerAndLine).strict(),
    (db: TelecomDb, { customer_id, line_id }) => {
      _line(db, customer_id, line_id).roaming_enabled = false;
    },
  ),
  set_data_usage: init(
    z.object({ ...customerAndLine, data_used_gb: laxFloat() }).strict(),
    (db: TelecomDb, { customer_id, line_id, data_used_gb }) => {
      _line(db, customer_id, line_id).data_used_gb = data_used_gb;
    },
  ),
  suspend_line_for_overdue_bill: init(
    z.object({
      ...customerAndLine,
      new_bill_id: z.string(),
      contract_ended: z.boolean().default(false),
    }).strict(),
    (db: TelecomDb, { customer_id, line_id, new_bill_id, contract_ended }, ctx) => {
      const line = _line(db, customer_id, line_id);
      if (line.status !== "Active") {
        throw new Error(`line '${line_id}' must be active (it is '${line.status}')`);
      }
      const customer = findCustomer(db, customer_id)!;
      const overdue = idsOf(customer.bill_ids).find((id) => findBill(db, id)?.status === "Overdue");
      if (overdue) {
        throw new Error(
          `customer '${customer_id}' already has an overdue bill (${overdue})`,
        );
      }
      const plan = findPlan(db, line.plan_id);
      if (!plan) throw new Error(`plan '${line.plan_id}' not found`);
      const amount = plan.price_per_month;
      const lastMonthStart = firstOfMonth(ctx.today, -1);
      const lastMonthEnd = lastOfMonth(ctx.today, -1);
      (db.bills ??= []).push({
        bill_id: new_bill_id,
        customer_id,
        period_start: lastMonthStart,
        period_end: lastMonthEnd,
        issue_date: lastMonthStart,
        total_due: amount,
        due_date: addDays(lastMonthStart, 14),
        status: "Overdue",
        line_items: [{
          description: `Charge for line ${line_id}`,
          amount,
          date: ctx.today,
          item_type: "Charge",
        }],
      });
      (customer.bill_ids ??= []).push(new_bill_id);
      line.status = "Suspended";
      line.suspension_start_date = ctx.today;
      if (contract_ended) line.contract_end_date = lastMonthEnd;
    },
  ),
};

export const initFunctions: Readonly<Record<Side, Readonly<Record<string, InitFunction>>>> = {
  user: userInitFunctions,
  agent: agentInitFunctions,
};
