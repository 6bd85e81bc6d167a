/**
 * Argument schemas of the eva_airline tools. They accept what the reference's
 * pydantic models accept (lax numbers and booleans, extra keys ignored), report
 * failures with pydantic's wording, and upper-case the codes a caller spells out
 * (confirmation numbers, flight numbers, journey ids, airport codes).
 *
 * @module
 */
import { z } from "zod";

export const FARE_CLASSES = [
  "basic_economy",
  "main_cabin",
  "premium_economy",
  "business",
  "first",
] as const;
export type FareClass = (typeof FARE_CLASSES)[number];

export const REBOOKING_TYPES = [
  "voluntary",
  "same_day",
  "irrops_cancellation",
  "irrops_delay",
  "irrops_schedule_change",
  "missed_flight_passenger_fault",
  "missed_connection_airline_fault",
] as const;

export const SEAT_PREFERENCES = ["window", "aisle", "middle", "no_preference"] as const;

export const MEAL_TYPES = [
  "vegetarian",
  "vegan",
  "kosher",
  "halal",
  "gluten_free",
  "diabetic",
  "low_sodium",
  "child",
  "hindu",
  "none",
  "standard",
] as const;

export const CREDIT_REASONS = [
  "cancellation_non_refundable",
  "fare_difference_negative",
  "service_recovery",
  "goodwill",
  "downgrade_compensation",
] as const;

export const VOUCHER_REASONS = [
  "delay_over_2_hours",
  "delay_over_4_hours",
  "cancellation_wait_same_day",
  "irrops_overnight",
] as const;

export const REFUND_TYPES = ["full_fare", "partial_fare", "taxes_only", "ancillary_fees"] as const;

export const CANCELLATION_REASONS = [
  "voluntary",
  "irrops_refund",
  "24_hour_rule",
  "schedule_unacceptable",
  "medical",
  "bereavement",
] as const;

/**
 * What the reference's error message says a documented field must be: its pydantic
 * `description` and `examples`. Only required code fields carry one (an optional
 * field's metadata sits inside a union, where pydantic does not look).
 */
export interface FieldDoc {
  description: string;
  examples?: string[];
}

const fieldDocs = new WeakMap<z.ZodType, FieldDoc>();

/** The documentation the reference's message quotes for this field schema, if any. */
export function fieldDoc(schema: z.ZodType): FieldDoc | undefined {
  return fieldDocs.get(schema);
}

function _documented<T extends z.ZodType>(schema: T, doc: FieldDoc | undefined): T {
  if (doc) fieldDocs.set(schema, doc);
  return schema;
}

const _required = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? "Field required" : what;

/** A plain string, as pydantic `str` (no coercion from numbers). */
export function text(description: string) {
  return z.string({ error: _required("Input should be a valid string") }).describe(description);
}

function _code(pattern: RegExp, doc: FieldDoc, upper: boolean) {
  const s = z.string({ error: _required("Input should be a valid string") })
    .regex(pattern, { error: `String should match pattern '${pattern.source}'` });
  return { schema: upper ? s.overwrite((v) => v.toUpperCase()) : s, doc };
}

const CODES = {
  confirmation: _code(/^[A-Za-z0-9]{6}$/, { description: "6 alphanumeric characters" }, true),
  flight: _code(/^[A-Za-z]{2,3}\d{1,4}$/, {
    description: "2-3 letters followed by 1-4 digits",
    examples: ["SK621"],
  }, true),
  date: _code(/^\d{4}-\d{2}-\d{2}$/, { description: "YYYY-MM-DD" }, false),
  journey: _code(/^FL_(?:[A-Za-z]{2,3}\d{1,4}_)+\d{8}$/, {
    description: "FL_<flight>_<YYYYMMDD>",
    examples: ["FL_SK621_20260320"],
  }, true),
  passenger: _code(/^PAX\d+$/, { description: "PAX<digits>", examples: ["PAX001"] }, false),
  airport: _code(/^[A-Za-z]{3}$/, {
    description: "3-letter airport code",
    examples: ["JFK"],
  }, true),
};
type CodeKind = keyof typeof CODES;

/** A required code field, documented as the reference documents it. */
export function code(kind: CodeKind, description: string) {
  const { schema, doc } = CODES[kind];
  return _documented(schema.describe(description), doc);
}

/** An optional (nullable) code field: `null` and absence both mean "not given". */
export function optionalCode(kind: CodeKind, description: string) {
  return CODES[kind].schema.nullish().describe(description);
}

/** A list of codes (no field documentation: pydantic reports the item's own error). */
export function codeList(kind: CodeKind, description: string) {
  return z.array(CODES[kind].schema, { error: _required("Input should be a valid list") })
    .describe(description);
}

function _enumMessage(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  const last = quoted.pop()!;
  return `Input should be ${quoted.length ? `${quoted.join(", ")} or ${last}` : last}`;
}

/** A string enum, as a pydantic `StrEnum` field (exact values). */
export function choice<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
) {
  return z.enum(values, { error: _required(_enumMessage(values)) }).describe(description);
}

/** An optional (nullable) string enum. */
export function optionalChoice<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
) {
  return z.enum(values, { error: _enumMessage(values) }).nullish().describe(description);
}

const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** Pydantic's lax number input: numeric strings and booleans become numbers. */
function _laxNumber(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" && NUMERIC.test(v)) return Number(v);
  return v;
}

/** An integer, as pydantic `int` in lax mode, with optional bounds. */
export function integer(description: string, bounds: { ge?: number; le?: number } = {}) {
  let n = z.number({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string"
        ? "Input should be a valid integer, unable to parse string as an integer"
        : "Input should be a valid integer",
  }).int({ error: "Input should be a valid integer, got a number with a fractional part" });
  if (bounds.ge !== undefined) {
    n = n.min(bounds.ge, { error: `Input should be greater than or equal to ${bounds.ge}` });
  }
  if (bounds.le !== undefined) {
    n = n.max(bounds.le, { error: `Input should be less than or equal to ${bounds.le}` });
  }
  return z.preprocess(_laxNumber, n).describe(description);
}

/** A number, as pydantic `float` in lax mode, greater than `gt`. */
export function amount(description: string, gt: number) {
  const n = z.number({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string"
        ? "Input should be a valid number, unable to parse string as a number"
        : "Input should be a valid number",
  }).gt(gt, { error: `Input should be greater than ${gt}` });
  return z.preprocess(_laxNumber, n).describe(description);
}

const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);

/** A boolean, as pydantic `bool` in lax mode (`"yes"`, `0`, `"False"` ...). */
export function flag(description: string) {
  const b = z.boolean({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string" || typeof iss.input === "number"
        ? "Input should be a valid boolean, unable to interpret input"
        : "Input should be a valid boolean",
  });
  const lax = (v: unknown) => {
    if (v === 0 || v === 1) return v === 1;
    if (typeof v === "string") {
      const w = v.trim().toLowerCase();
      if (TRUE_WORDS.has(w)) return true;
      if (FALSE_WORDS.has(w)) return false;
    }
    return v;
  };
  return z.preprocess(lax, b).describe(description);
}

/**
 * Which eva `error_type` a validation failure of each field maps to (§6.1); any
 * other field gives `invalid_parameter`.
 */
export const FIELD_ERROR_TYPES: Readonly<Record<string, string>> = {
  rebooking_type: "invalid_rebooking_type",
  new_fare_class: "invalid_fare_class",
  fare_class: "invalid_fare_class",
  meal_type: "invalid_meal_type",
  credit_reason: "invalid_credit_reason",
  voucher_reason: "invalid_voucher_reason",
  refund_type: "invalid_refund_type",
  seat_preference: "invalid_seat_preference",
  cancellation_reason: "invalid_cancellation_reason",
  confirmation_number: "invalid_confirmation_number_format",
  flight_number: "invalid_flight_number_format",
  flight_date: "invalid_date_format",
  date: "invalid_date_format",
  journey_id: "invalid_journey_id_format",
  new_journey_id: "invalid_journey_id_format",
  passenger_id: "invalid_passenger_id_format",
  passenger_ids: "invalid_passenger_id_format",
  origin: "invalid_airport_code_format",
  destination: "invalid_airport_code_format",
  num_bags: "invalid_bag_count",
};
