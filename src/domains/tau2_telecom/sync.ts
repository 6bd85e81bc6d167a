/**
 * Cross-side sync (tau2 dual control): the agent's records and the caller's phone
 * describe one world, so a change on one side can change the other. After every
 * recorded write (and once after initialisation), `syncTelecomState` brings the
 * phone's surroundings in line with the caller's line (active, roaming allowed,
 * data quota) and moves payment requests both ways; `applyTelecomDelta` is the
 * receiving side's applier.
 *
 * @module
 */
import type { Db, Side, SyncDeltas } from "../domain.ts";
import { findBill, findCustomerByPhone, findLineByPhone, findPlan, idsOf } from "./agent_db.ts";
import type { TelecomDb, TelecomUserDb } from "./data_model.ts";
import { simulateNetworkSearch } from "./network_search.ts";

/**
 * Reconciles both sides in place and returns what changed, per side, as the
 * reference's `sync_telecom_state` does: dotted paths for the phone,
 * `bills[<id>].<field>` for the agent. A phone without a number, or a number no
 * line has, syncs nothing. Never throws.
 */
export function syncTelecomState(agentDb: Db, userDb: Db): SyncDeltas {
  const deltas: SyncDeltas = { agent: {}, user: {} };
  try {
    _sync(agentDb as TelecomDb, userDb as Partial<TelecomUserDb>, deltas);
  } catch {
    // A malformed world syncs what it can; the call that triggered it has succeeded.
  }
  return deltas;
}

function _sync(agent: TelecomDb, phone: Partial<TelecomUserDb>, deltas: SyncDeltas): void {
  const surroundings = phone.surroundings;
  if (typeof surroundings !== "object" || surroundings === null) return;
  const phoneNumber = surroundings.phone_number;
  if (phoneNumber == null) return;
  const line = findLineByPhone(agent, phoneNumber);
  if (!line) return;

  const setUser = <K extends keyof typeof surroundings>(
    key: K,
    value: (typeof surroundings)[K],
  ) => {
    if (surroundings[key] === value) return;
    surroundings[key] = value;
    deltas.user[`surroundings.${key}`] = value;
  };

  setUser("line_active", line.status === "Active");
  setUser("roaming_allowed", Boolean(line.roaming_enabled));
  const plan = findPlan(agent, line.plan_id);
  if (plan) {
    const used = Number(line.data_used_gb ?? 0);
    const limit = Number(plan.data_limit_gb ?? 0) + Number(line.data_refueling_gb ?? 0);
    setUser("mobile_data_usage_exceeded", used >= limit);
  }

  // A paid request settles the agent's bill and clears the request.
  let request = surroundings.payment_request ?? null;
  if (request?.paid) {
    const bill = findBill(agent, request.bill_id);
    if (bill && bill.status !== "Paid") {
      bill.status = "Paid";
      deltas.agent[`bills[${bill.bill_id}].status`] = "Paid";
    }
    surroundings.payment_request = null;
    deltas.user["surroundings.payment_request"] = null;
    request = null;
  }
  // No open request: surface the first bill awaiting payment, if any.
  if (request === null) {
    const customer = findCustomerByPhone(agent, phoneNumber);
    for (const billId of idsOf(customer?.bill_ids)) {
      const bill = findBill(agent, billId);
      if (bill?.status !== "Awaiting Payment") continue;
      const next = { bill_id: bill.bill_id, amount_due: bill.total_due ?? 0, paid: false };
      surroundings.payment_request = next;
      deltas.user["surroundings.payment_request"] = { ...next };
      break;
    }
  }
}

const BILL_PATH = /^bills\[([^\]]+)\]\.(.+)$/;

/**
 * Applies one side's delta, as the reference's bot-side applier: a
 * `surroundings.<field>` key sets that field (and the network search then re-runs),
 * `bills[<id>].<field>` sets a field of that bill (no such bill: nothing), any
 * other key is a dotted path whose parents must exist (else it is skipped). It
 * ignores which side it is given, like the reference, and never throws.
 */
export function applyTelecomDelta(db: Db, delta: Record<string, unknown>, _side?: Side): void {
  let surroundingsChanged = false;
  for (const [path, value] of Object.entries(delta)) {
    if (path.startsWith("surroundings.")) {
      const field = path.slice("surroundings.".length);
      if (field === "__proto__") continue;
      const surroundings = _object(db, "surroundings") ?? (db.surroundings = {});
      (surroundings as Record<string, unknown>)[field] = value;
      surroundingsChanged = true;
      continue;
    }
    const bill = BILL_PATH.exec(path);
    if (bill) {
      const bills = Array.isArray(db.bills) ? db.bills as Record<string, unknown>[] : [];
      const target = bills.find((b) => b?.bill_id === bill[1]);
      if (target && bill[2] !== "__proto__") target[bill[2]!] = value;
      continue;
    }
    _setDotted(db, path, value);
  }
  // Only a phone can search; an agent database given a phone delta stays as it is.
  const phone = db as Partial<TelecomUserDb>;
  if (surroundingsChanged && _object(phone, "device") && _object(phone, "surroundings")) {
    try {
      simulateNetworkSearch(phone as TelecomUserDb);
    } catch {
      // A phone missing some field cannot search; the reference skips it too.
    }
  }
}

function _object(parent: unknown, key: string): Record<string, unknown> | undefined {
  // Own keys only: a path from a client never walks into a prototype.
  if (typeof parent !== "object" || parent === null || !Object.hasOwn(parent, key)) {
    return undefined;
  }
  const v = (parent as Record<string, unknown>)[key];
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : undefined;
}

function _setDotted(db: Db, path: string, value: unknown): void {
  const parts = path.split(".");
  let target: Record<string, unknown> = db;
  for (const part of parts.slice(0, -1)) {
    const next = _object(target, part);
    if (!next) return;
    target = next;
  }
  if (parts.at(-1) !== "__proto__") target[parts.at(-1)!] = value;
}
