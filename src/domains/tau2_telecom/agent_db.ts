/**
 * Lookups over the agent's database, shared by tools, predicates, init functions
 * and the sync. Missing tables read as empty, so a malformed world gives "not
 * found" rather than a crash.
 *
 * @module
 */
import type { Bill, Customer, Device, Line, Plan, TelecomDb } from "./data_model.ts";
import { ToolError } from "./tool_kit.ts";

/** The first row whose `key` is `value`, stopping there. */
function _find<T extends object>(
  table: T[] | undefined,
  key: keyof T,
  value: unknown,
): T | undefined {
  if (!Array.isArray(table)) return undefined;
  return table.find((r) => typeof r === "object" && r !== null && r[key] === value);
}

/** A list of ids; anything but an array reads as none. */
export function idsOf(ids: string[] | undefined): string[] {
  return Array.isArray(ids) ? ids : [];
}

/** A table's rows: anything but an array reads as no rows, a non-object row is skipped. */
export function rowsOf<T>(table: T[] | undefined): T[] {
  return Array.isArray(table) ? table.filter((r) => typeof r === "object" && r !== null) : [];
}

export function findCustomer(db: TelecomDb, customerId: string): Customer | undefined {
  return _find(db.customers, "customer_id", customerId);
}

export function findLine(db: TelecomDb, lineId: string): Line | undefined {
  return _find(db.lines, "line_id", lineId);
}

export function findLineByPhone(db: TelecomDb, phoneNumber: string): Line | undefined {
  return _find(db.lines, "phone_number", phoneNumber);
}

export function findPlan(db: TelecomDb, planId: string): Plan | undefined {
  return _find(db.plans, "plan_id", planId);
}

export function findBill(db: TelecomDb, billId: string): Bill | undefined {
  return _find(db.bills, "bill_id", billId);
}

export function findDevice(db: TelecomDb, deviceId: string): Device | undefined {
  return _find(db.devices, "device_id", deviceId);
}

/** The customer whose own number, or one of whose lines, is `phoneNumber`. */
export function findCustomerByPhone(db: TelecomDb, phoneNumber: string): Customer | undefined {
  return rowsOf(db.customers).find((c) =>
    c.phone_number === phoneNumber ||
    idsOf(c.line_ids).some((id) => findLine(db, id)?.phone_number === phoneNumber)
  );
}

/** The line, if it exists and belongs to the customer. */
export function customerLine(db: TelecomDb, customerId: string, lineId: string): Line | undefined {
  const customer = findCustomer(db, customerId);
  if (!customer || !idsOf(customer.line_ids).includes(lineId)) return undefined;
  return findLine(db, lineId);
}

/** The customer's line, or the reference's not-found error. */
export function targetLine(db: TelecomDb, customerId: string, lineId: string): Line {
  const customer = findCustomer(db, customerId);
  if (!customer) throw new ToolError(`Customer with ID ${customerId} not found`);
  if (!idsOf(customer.line_ids).includes(lineId)) {
    throw new ToolError(`Line ${lineId} not found for customer ${customerId}`);
  }
  const line = findLine(db, lineId);
  if (!line) throw new ToolError(`Line with ID ${lineId} not found`);
  return line;
}
