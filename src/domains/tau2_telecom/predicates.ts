/**
 * The six telecom state predicates behind `db_state_assertions`, by side: four read
 * the caller's phone, two the agent's records. `predicate(db, args)` returns the
 * value compared with the assertion's `assert_value`.
 *
 * @module
 */
import { z } from "zod";
import type { Db, Predicate, Side } from "../domain.ts";
import { customerLine, findBill } from "./agent_db.ts";
import { NETWORK_STATUSES, type TelecomDb, type TelecomUserDb } from "./data_model.ts";
import { canSendMms, mobileDataWorking, speedTest } from "./diagnostics.ts";

/** A predicate whose arguments are checked first: a bad call is an error, not `false`. */
function predicate<A>(args: z.ZodType<A>, fn: (db: Db, args: A) => boolean): Predicate {
  return (db, raw) => {
    const parsed = args.safeParse(raw);
    if (!parsed.success) {
      throw new Error(`bad arguments: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    }
    return fn(db, parsed.data);
  };
}

const expectedBool = z.object({ expected_status: z.boolean() }).strict();

/** Whether mobile data works (or not) as expected. */
export const assertMobileDataStatus = predicate(
  expectedBool,
  (db, { expected_status }) => mobileDataWorking(db as TelecomUserDb) === expected_status,
);

/**
 * Whether the speed test reaches `expected_speed` (no connection counts as 0) and,
 * when given, carries the expected label (case-insensitive).
 */
export const assertInternetSpeed = predicate(
  z.object({ expected_speed: z.number(), expected_desc: z.string().nullish() }).strict(),
  (db, { expected_speed, expected_desc }) => {
    const test = speedTest(db as TelecomUserDb);
    const speed = test.speed ?? 0;
    if (expected_desc == null) return speed >= expected_speed;
    return speed >= expected_speed &&
      test.description.toLowerCase() === expected_desc.toLowerCase();
  },
);

/** Whether the phone's connection status is `expected_status` (a known status). */
export const assertServiceStatus = predicate(
  z.object({ expected_status: z.enum(NETWORK_STATUSES) }).strict(),
  (db, { expected_status }) =>
    (db as TelecomUserDb).device.network_connection_status === expected_status,
);

/** Whether the phone can (or cannot) send MMS as expected. */
export const assertCanSendMms = predicate(
  expectedBool,
  (db, { expected_status }) => canSendMms(db as TelecomUserDb) === expected_status,
);

/** Whether the customer's line has `expected_amount` GB refuelled (false if no such line). */
export const assertDataRefuelingAmount = predicate(
  z.object({ customer_id: z.string(), line_id: z.string(), expected_amount: z.number() })
    .strict(),
  (db, { customer_id, line_id, expected_amount }) => {
    const line = customerLine(db as TelecomDb, customer_id, line_id);
    return line !== undefined && Math.abs(line.data_refueling_gb - expected_amount) < 1e-6;
  },
);

/** Whether the bill is gone or paid. */
export const assertNoOverdueBill = predicate(
  z.object({ overdue_bill_id: z.string() }).strict(),
  (db, { overdue_bill_id }) => {
    const bill = findBill(db as TelecomDb, overdue_bill_id);
    return bill === undefined || bill.status === "Paid";
  },
);

export const predicates: Readonly<Record<Side, Readonly<Record<string, Predicate>>>> = {
  user: {
    assert_mobile_data_status: assertMobileDataStatus,
    assert_internet_speed: assertInternetSpeed,
    assert_service_status: assertServiceStatus,
    assert_can_send_mms: assertCanSendMms,
  },
  agent: {
    assert_data_refueling_amount: assertDataRefuelingAmount,
    assert_no_overdue_bill: assertNoOverdueBill,
  },
};
