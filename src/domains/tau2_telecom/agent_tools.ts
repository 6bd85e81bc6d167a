/**
 * The agent's 13 telecom tools: customer and bill lookups, line suspension and
 * resumption, roaming, payment requests, data refuelling and the transfer to a
 * human. They read and write the agent's database.
 *
 * Determinism: "today" is always the scenario's date (`ctx.today`), never the
 * machine's clock, and an id the reference mints from a random UUID (the draft bill
 * `refuel_data` may open) is minted with `ctx.uuid(label)` in the same format
 * (`B` + 8 hex digits), so the same trial always produces the same world and hash.
 *
 * @module
 */
import { z } from "zod";
import type { ToolContext, ToolDef } from "../domain.ts";
import { EXIT_TRANSFER } from "../common.ts";
import {
  findBill,
  findCustomer,
  findDevice,
  findLine,
  findPlan,
  idsOf,
  rowsOf,
  targetLine,
} from "./agent_db.ts";
import { addDays, firstOfMonth, lastOfMonth } from "./calendar.ts";
import type { Bill, TelecomDb } from "./data_model.ts";
import { laxFloat, laxInt } from "./lax_numbers.ts";
import { pyFixed, pyFloat } from "./python_text.ts";
import { actionRecord, done, telecomTool, type TelecomToolSpec, ToolError } from "./tool_kit.ts";

const customerId = z.string().describe("The customer's ID, such as 'C1001'.");
const lineId = z.string().describe("The line's ID, such as 'L1001'.");

function agentTool<A>(spec: Omit<TelecomToolSpec<A, TelecomDb>, "side">): ToolDef<A> {
  return telecomTool<A, TelecomDb>({ ...spec, side: "agent" });
}

const copy = <T extends object>(o: T): T => ({ ...o });

export const getCustomerByPhone = agentTool({
  name: "get_customer_by_phone",
  kind: "read",
  description: "Look up a customer by a phone number: their contact number or one of their lines.",
  args: z.object({ phone_number: z.string().describe("The phone number to look up.") }).strict(),
  run({ phone_number }, db) {
    for (const c of rowsOf(db.customers)) {
      if (c.phone_number === phone_number) return done(copy(c));
      for (const id of idsOf(c.line_ids)) {
        if (findLine(db, id)?.phone_number === phone_number) return done(copy(c));
      }
    }
    throw new ToolError(`Customer with phone number ${phone_number} not found`);
  },
});

export const getCustomerById = agentTool({
  name: "get_customer_by_id",
  kind: "read",
  description: "Look up a customer by customer ID.",
  args: z.object({ customer_id: customerId }).strict(),
  run({ customer_id }, db) {
    const c = findCustomer(db, customer_id);
    if (!c) throw new ToolError(`Customer with ID ${customer_id} not found`);
    return done(copy(c));
  },
});

export const getCustomerByName = agentTool({
  name: "get_customer_by_name",
  kind: "read",
  description:
    "Find customers by full name and date of birth (the date tells apart people with the same name). Returns a list, usually of zero or one customer.",
  args: z.object({
    full_name: z.string().describe("The customer's full name."),
    dob: z.string().describe("Date of birth, YYYY-MM-DD."),
  }).strict(),
  run({ full_name, dob }, db) {
    const wanted = full_name.toLowerCase();
    return done(
      rowsOf(db.customers)
        .filter((c) => c.full_name.toLowerCase() === wanted && c.date_of_birth === dob)
        .map(copy),
    );
  },
});

export const getDetailsById = agentTool({
  name: "get_details_by_id",
  kind: "read",
  description:
    "Get any record by its ID: customer (C...), line (L...), device (D...), bill (B...) or plan (P...).",
  args: z.object({ id: z.string().describe("An ID such as 'C1001', 'L1002' or 'B1003'.") })
    .strict(),
  run({ id }, db) {
    const find = {
      L: findLine,
      D: findDevice,
      B: findBill,
      C: findCustomer,
      P: findPlan,
    }[id.charAt(0)] as ((db: TelecomDb, id: string) => object | undefined) | undefined;
    if (!find) throw new ToolError(`Unknown ID format or type: ${id}`);
    const found = find(db, id);
    if (!found) throw new ToolError(`Object with ID ${id} not found`);
    return done(copy(found));
  },
});

export const getBillsForCustomer = agentTool({
  name: "get_bills_for_customer",
  kind: "read",
  description: "List a customer's bills, newest first, optionally only the first few.",
  args: z.object({
    customer_id: customerId,
    limit: laxInt().default(12).describe("How many bills at most (default 12)."),
  }).strict(),
  run({ customer_id, limit }, db) {
    const customer = findCustomer(db, customer_id);
    if (!customer) throw new ToolError(`Customer with ID ${customer_id} not found`);
    const bills = idsOf(customer.bill_ids)
      .map((id) => findBill(db, id))
      .filter((b): b is Bill => b !== undefined)
      // Newest first; a stable sort keeps bills of one date in their stored order.
      .sort((a, b) => a.issue_date < b.issue_date ? 1 : a.issue_date > b.issue_date ? -1 : 0);
    // Python slicing: a negative limit drops bills from the end.
    return done(bills.slice(0, limit).map(copy));
  },
});

export const getDataUsage = agentTool({
  name: "get_data_usage",
  kind: "read",
  description:
    "A line's data use this billing cycle: used, plan limit, refuelled data and the cycle's end date.",
  args: z.object({ customer_id: customerId, line_id: lineId }).strict(),
  run({ customer_id, line_id }, db, ctx) {
    const line = targetLine(db, customer_id, line_id);
    const plan = findPlan(db, line.plan_id);
    if (!plan) throw new ToolError(`Plan ${line.plan_id} not found for line ${line_id}`);
    return done({
      line_id,
      data_used_gb: line.data_used_gb,
      data_limit_gb: plan.data_limit_gb,
      data_refueling_gb: line.data_refueling_gb,
      cycle_end_date: lastOfMonth(ctx.today),
    });
  },
});

export const suspendLine = agentTool({
  name: "suspend_line",
  kind: "write",
  description:
    "Suspend an active line (for at most 6 months); a holding fee applies. Fails unless the line is Active.",
  args: z.object({
    customer_id: customerId,
    line_id: lineId,
    reason: z.string().describe("Why the line is suspended."),
  }).strict(),
  run({ customer_id, line_id, reason }, db, ctx) {
    const line = targetLine(db, customer_id, line_id);
    if (line.status !== "Active") throw new ToolError("Line must be active to suspend");
    line.status = "Suspended";
    line.suspension_start_date = ctx.today;
    return done(
      {
        message: "Line suspended successfully. $5/month holding fee will apply.",
        line: copy(line),
      },
      actionRecord("suspend_line", { customer_id, line_id, reason }, {
        line_id,
        status: "Suspended",
      }),
    );
  },
});

export const resumeLine = agentTool({
  name: "resume_line",
  kind: "write",
  description: "Resume a Suspended or Pending Activation line, making it Active.",
  args: z.object({ customer_id: customerId, line_id: lineId }).strict(),
  run({ customer_id, line_id }, db) {
    const line = targetLine(db, customer_id, line_id);
    if (line.status !== "Suspended" && line.status !== "Pending Activation") {
      throw new ToolError("Line must be suspended to resume");
    }
    line.status = "Active";
    line.suspension_start_date = null;
    return done(
      { message: "Line resumed successfully", line: copy(line) },
      actionRecord("resume_line", { customer_id, line_id }, { line_id, status: "Active" }),
    );
  },
});

function roamingTool(name: "enable_roaming" | "disable_roaming", on: boolean) {
  return agentTool({
    name,
    kind: "write",
    description: `${on ? "Turn on" : "Turn off"} international roaming for a line.`,
    args: z.object({ customer_id: customerId, line_id: lineId }).strict(),
    run({ customer_id, line_id }, db) {
      const line = targetLine(db, customer_id, line_id);
      const word = on ? "enabled" : "disabled";
      // Already in that state: a plain message and no record, as the reference.
      if (Boolean(line.roaming_enabled) === on) return done(`Roaming was already ${word}`);
      line.roaming_enabled = on;
      return done(
        `Roaming ${word} successfully`,
        actionRecord(name, { customer_id, line_id }, { roaming_enabled: on }),
      );
    },
  });
}

export const enableRoaming = roamingTool("enable_roaming", true);
export const disableRoaming = roamingTool("disable_roaming", false);

export const sendPaymentRequest = agentTool({
  name: "send_payment_request",
  kind: "write",
  description:
    "Ask the customer to pay one of their bills; the bill becomes Awaiting Payment. Only one bill may await payment at a time.",
  args: z.object({
    customer_id: customerId,
    bill_id: z.string().describe("The bill's ID, such as 'B1002'."),
  }).strict(),
  run({ customer_id, bill_id }, db) {
    const customer = findCustomer(db, customer_id);
    if (!customer) throw new ToolError(`Customer ${customer_id} not found`);
    const awaiting = idsOf(customer.bill_ids).some((id) =>
      findBill(db, id)?.status === "Awaiting Payment"
    );
    if (awaiting) throw new ToolError("A bill is already awaiting payment for this customer");
    const bill = idsOf(customer.bill_ids).includes(bill_id) ? findBill(db, bill_id) : undefined;
    if (!bill) throw new ToolError(`Bill ${bill_id} not found for customer ${customer_id}`);
    bill.status = "Awaiting Payment";
    return done(
      `Payment request sent to the customer for bill ${bill_id}`,
      actionRecord("send_payment_request", { customer_id, bill_id }, {
        bill_id,
        status: "Awaiting Payment",
      }),
    );
  },
});

export const refuelData = agentTool({
  name: "refuel_data",
  kind: "write",
  description:
    "Add data to a line for this cycle; the plan's per-GB price is charged on the customer's next bill.",
  args: z.object({
    customer_id: customerId,
    line_id: lineId,
    gb_amount: laxFloat().describe("How many GB to add (positive)."),
  }).strict(),
  run({ customer_id, line_id, gb_amount }, db, ctx) {
    if (gb_amount <= 0) throw new ToolError("Refuel amount must be positive");
    const line = targetLine(db, customer_id, line_id);
    const plan = findPlan(db, line.plan_id);
    if (!plan) throw new ToolError("Plan not found for this line");
    const price = plan.data_refueling_price_per_gb;
    const charge = gb_amount * price;
    line.data_refueling_gb = (line.data_refueling_gb ?? 0) + gb_amount;
    _chargeNextBill(
      db,
      customer_id,
      charge,
      `Data refueling: ${pyFloat(gb_amount)} GB at $${pyFloat(price)}/GB`,
      ctx,
    );
    return done(
      {
        message: `Successfully added ${pyFloat(gb_amount)} GB of data for line ${line_id} for $${
          pyFixed(charge, 2)
        }`,
        new_data_refueling_gb: line.data_refueling_gb,
        charge,
      },
      actionRecord("refuel_data", { customer_id, line_id, gb_amount }, {
        new_data_refueling_gb: line.data_refueling_gb,
        charge,
      }),
    );
  },
});

/** Adds a charge to the customer's Draft bill, opening one for next month if none. */
function _chargeNextBill(
  db: TelecomDb,
  customerId: string,
  amount: number,
  description: string,
  ctx: ToolContext,
): void {
  const customer = findCustomer(db, customerId);
  if (!customer) throw new ToolError(`Customer ${customerId} not found`);
  let draft = idsOf(customer.bill_ids)
    .map((id) => findBill(db, id))
    .find((b) => b?.status === "Draft");
  if (!draft) {
    const nextMonth = firstOfMonth(ctx.today, 1);
    // The reference mints `B` + 8 hex digits of a random UUID; ours is seeded.
    const billId = `B${ctx.uuid("bill").replaceAll("-", "").slice(0, 8)}`;
    draft = {
      bill_id: billId,
      customer_id: customerId,
      period_start: nextMonth,
      period_end: lastOfMonth(nextMonth),
      issue_date: nextMonth,
      total_due: 0,
      due_date: addDays(nextMonth, 14),
      line_items: [],
      status: "Draft",
    };
    (db.bills ??= []).push(draft);
    (customer.bill_ids ??= []).push(billId);
  }
  (draft.line_items ??= []).push({
    description,
    amount,
    date: ctx.today,
    item_type: amount < 0 ? "Credit" : "Charge",
  });
  draft.total_due = (draft.total_due ?? 0) + amount;
}

export const transferToHumanAgents = agentTool({
  name: "transfer_to_human_agents",
  kind: "write",
  effect: "transfer",
  description:
    "Hand the caller to a human agent with a summary of their issue. Only when the caller asks for a human, or when policy and tools cannot solve the issue.",
  args: z.object({ summary: z.string().describe("A summary of the caller's issue.") }).strict(),
  needsDb: false,
  run({ summary }) {
    return {
      ok: true,
      result: "Transfer successful",
      record: actionRecord("transfer_to_human_agents", { summary }, { transferred: true }),
      exit: EXIT_TRANSFER,
    };
  },
});

/** The agent's tools, reads first. */
export const agentTools: readonly ToolDef[] = [
  getCustomerByPhone,
  getCustomerById,
  getCustomerByName,
  getDetailsById,
  getBillsForCustomer,
  getDataUsage,
  suspendLine,
  resumeLine,
  enableRoaming,
  disableRoaming,
  sendPaymentRequest,
  refuelData,
  transferToHumanAgents,
];
