/**
 * The bank's database as the reference's tools see it: named tables, each
 * `{data: {record id: record}, notes}`, queried with Django-style constraints
 * (`field__gt`, `field__in`...), and the listing text its query tool answers.
 * A table the world does not hold yet reads as empty and is created on first
 * write (the reference's model always has all of them).
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { markedInt } from "./int_marks.ts";
import { pyStr } from "./python_format.ts";

export type BankRecord = Record<string, unknown>;

/** The tables the reference's query tool knows, in its order (its error lists them so). */
export const QUERYABLE_TABLES = [
  "users",
  "accounts",
  "referrals",
  "credit_card_applications",
  "user_discoverable_tools",
  "user_discoverable_tool_calls",
  "agent_discoverable_tools",
  "task_config",
  "verification_history",
  "credit_card_transaction_history",
  "cash_back_disputes",
  "bank_account_transaction_history",
  "credit_card_accounts",
  "human_transfer_requests",
  "transaction_disputes",
  "credit_card_orders",
  "credit_card_closure_reasons",
  "credit_card_account_flags",
  "debit_cards",
  "debit_card_orders",
  "debit_card_disputes",
  "credit_limit_increase_requests",
  "payment_history",
] as const;

const TABLES: ReadonlySet<string> = new Set(QUERYABLE_TABLES);

/** A table's records (empty when the world lacks the table); undefined if no such table. */
export function rows(db: Db, name: string): Record<string, BankRecord> | undefined {
  if (!TABLES.has(name)) return undefined;
  const table = Object.hasOwn(db, name) ? db[name] as { data?: unknown } : undefined;
  const data = table?.data;
  return typeof data === "object" && data !== null ? data as Record<string, BankRecord> : {};
}

/** A table's records for writing, the table created if the world lacks it. */
export function writable(db: Db, name: string): Record<string, BankRecord> | undefined {
  if (!TABLES.has(name)) return undefined;
  if (!Object.hasOwn(db, name) || typeof db[name] !== "object" || db[name] === null) {
    db[name] = { data: {}, notes: "" };
  }
  const table = db[name] as { data?: unknown };
  if (typeof table.data !== "object" || table.data === null) table.data = {};
  return table.data as Record<string, BankRecord>;
}

/** A record by id, or undefined. */
export function recordOf(db: Db, name: string, id: unknown): BankRecord | undefined {
  const data = rows(db, name);
  if (!data || typeof id !== "string" || !Object.hasOwn(data, id)) return undefined;
  return data[id];
}

/** `add_to_db`: false when the table is unknown or the id taken. */
export function addRecord(db: Db, name: string, id: string, record: BankRecord): boolean {
  const data = rows(db, name);
  if (!data || Object.hasOwn(data, id)) return false;
  writable(db, name)![id] = record;
  return true;
}

/** `update_record_in_db`: the updated record, or undefined when there is none. */
export function updateRecord(
  db: Db,
  name: string,
  id: unknown,
  updates: BankRecord,
): BankRecord | undefined {
  if (recordOf(db, name, id) === undefined) return undefined;
  const record = writable(db, name)![id as string]!;
  Object.assign(record, updates);
  return record;
}

/** `query_db(..., return_ids=True, **constraints)`. */
export function query(db: Db, name: string, constraints: BankRecord): [string, BankRecord][] {
  const data = rows(db, name) ?? {};
  return Object.entries(data).filter(([, r]) => matches(r, constraints));
}

/** `query_database_tool(name, constraints_json)`: the listing text. */
export function queryText(db: Db, name: string, constraints = "{}"): string {
  if (!TABLES.has(name)) {
    return `Error: Database '${name}' not found. Available: [${
      QUERYABLE_TABLES.map((t) => `'${t}'`).join(", ")
    }]`;
  }
  let parsed: unknown;
  try {
    parsed = constraints ? JSON.parse(constraints) : {};
  } catch (e) {
    return `Error: Invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return "Error querying database: argument after ** must be a mapping";
  }
  return listing(name, query(db, name, parsed as BankRecord));
}

/** The reference's listing of records found in a table. */
export function listing(name: string, results: readonly [string, BankRecord][]): string {
  if (results.length === 0) return `No records found in '${name}'.`;
  const lines = [`Found ${results.length} record(s) in '${name}':\n`];
  results.forEach(([id, record], i) => {
    lines.push(`${i + 1}. Record ID: ${id}`);
    for (const [field, value] of Object.entries(record)) {
      lines.push(`   ${field}: ${pyStr(value, field, markedInt(name, id, field))}`);
    }
    lines.push("");
  });
  return lines.join("\n");
}

/** Whether the text a query tool answered lists records. */
export function found(text: string): boolean {
  return !text.includes("No records found") && !text.includes("No results found");
}

function matches(record: BankRecord, constraints: BankRecord): boolean {
  for (const [key, expected] of Object.entries(constraints)) {
    const cut = key.lastIndexOf("__");
    const [field, op] = cut >= 0 ? [key.slice(0, cut), key.slice(cut + 2)] : [key, "eq"];
    const actual = Object.hasOwn(record, field) ? record[field] : null;
    if (!compare(op, actual ?? null, expected)) return false;
  }
  return true;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case "ne":
      return !jsonEquals(a, b);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const same = (typeof a === "number" && typeof b === "number") ||
        (typeof a === "string" && typeof b === "string");
      if (!same) return false; // Python raises TypeError; the match fails
      const x = a as number | string;
      const y = b as number | string;
      return op === "gt" ? x > y : op === "gte" ? x >= y : op === "lt" ? x < y : x <= y;
    }
    case "contains":
      if (a === null) return false;
      if (typeof a === "string") return typeof b === "string" && a.includes(b);
      if (Array.isArray(a)) return a.some((x) => jsonEquals(x, b));
      if (typeof a === "object") return typeof b === "string" && Object.hasOwn(a, b);
      return false;
    case "startswith":
      return a !== null && pyStr(a).startsWith(pyStr(b));
    case "endswith":
      return a !== null && pyStr(a).endsWith(pyStr(b));
    case "in":
      return inContainer(a, b);
    case "nin":
      return !inContainer(a, b);
    default:
      return jsonEquals(a, b);
  }
}

function inContainer(a: unknown, b: unknown): boolean {
  if (Array.isArray(b)) return b.some((x) => jsonEquals(a, x));
  if (typeof b === "string") return typeof a === "string" && b.includes(a);
  if (typeof b === "object" && b !== null) return typeof a === "string" && Object.hasOwn(b, a);
  return false;
}

/** Python `==` on JSON values (1 == 1.0, True == 1). */
export function jsonEquals(a: unknown, b: unknown): boolean {
  const n = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  if (typeof n(a) === "number" && typeof n(b) === "number") return n(a) === n(b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEquals(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length &&
    ka.every((k) =>
      Object.hasOwn(b, k) &&
      jsonEquals((a as BankRecord)[k], (b as BankRecord)[k])
    );
}
