/**
 * Argument schemas as the eva tools' pydantic models declare them, in zod: the same
 * inputs accepted (lax integers and booleans, extra keys ignored), pydantic's own
 * wording for what fails, and each field's `description` and `examples` where the
 * reference's error message quotes them.
 *
 * @module
 */
import { z } from "zod";

/** A field's pydantic `description` and `examples`, as the error message quotes them. */
export interface FieldDoc {
  description?: string;
  examples?: readonly string[];
}

const docs = new WeakMap<z.ZodType, FieldDoc>();

/** The documentation pydantic keeps for this field schema, if any. */
export function fieldDoc(schema: z.ZodType): FieldDoc | undefined {
  return docs.get(schema);
}

/** Records a field's pydantic `description` and `examples` for the error message. */
export function documented<T extends z.ZodType>(schema: T, doc: FieldDoc): T {
  if (doc.description !== undefined) docs.set(schema, doc);
  return schema;
}

const required = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? "Field required" : what;

export interface StrOptions extends FieldDoc {
  pattern?: RegExp;
  min?: number;
  max?: number;
}

function strSchema(o: StrOptions) {
  let s = z.string({ error: required("Input should be a valid string") });
  if (o.min !== undefined) {
    s = s.min(o.min, {
      error: `String should have at least ${o.min} character${o.min === 1 ? "" : "s"}`,
    });
  }
  if (o.max !== undefined) {
    s = s.max(o.max, {
      error: `String should have at most ${o.max} character${o.max === 1 ? "" : "s"}`,
    });
  }
  if (o.pattern) {
    s = s.regex(o.pattern, { error: `String should match pattern '${o.pattern.source}'` });
  }
  return s;
}

/** A `str` field, with its pattern and length bounds. */
export function str(o: StrOptions = {}) {
  const s = strSchema(o);
  return documented(o.description ? s.describe(o.description) : s, o);
}

function enumMessage(values: readonly (string | number)[]): string {
  const quoted = values.map((v) => typeof v === "string" ? `'${v}'` : String(v));
  const last = quoted.pop()!;
  return `Input should be ${quoted.length ? `${quoted.join(", ")} or ${last}` : last}`;
}

/** A `StrEnum` field. */
export function choice<const T extends readonly [string, ...string[]]>(
  values: T,
  doc: FieldDoc = {},
) {
  const s = z.enum(values, { error: required(enumMessage(values)) });
  return documented(doc.description ? s.describe(doc.description) : s, doc);
}

const NUMERIC = /^\s*[-+]?\d+(\.0*)?\s*$/;

function laxInt(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" && NUMERIC.test(v)) return Number(v);
  return v;
}

/** An `int` field in lax mode, with pydantic's bounds. */
export function int(bounds: { gt?: number; ge?: number; lt?: number; le?: number } = {}) {
  let n = z.number({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string"
        ? "Input should be a valid integer, unable to parse string as an integer"
        : "Input should be a valid integer",
  }).int({ error: "Input should be a valid integer, got a number with a fractional part" });
  if (bounds.gt !== undefined) {
    n = n.gt(bounds.gt, { error: `Input should be greater than ${bounds.gt}` });
  }
  if (bounds.ge !== undefined) {
    n = n.gte(bounds.ge, { error: `Input should be greater than or equal to ${bounds.ge}` });
  }
  if (bounds.lt !== undefined) {
    n = n.lt(bounds.lt, { error: `Input should be less than ${bounds.lt}` });
  }
  if (bounds.le !== undefined) {
    n = n.lte(bounds.le, { error: `Input should be less than or equal to ${bounds.le}` });
  }
  return z.preprocess(laxInt, n);
}

const NUMBER_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A `float` field in lax mode, with pydantic's bounds. */
export function float(bounds: { gt?: number; ge?: number; le?: number } = {}) {
  let n = z.number({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string"
        ? "Input should be a valid number, unable to parse string as a number"
        : "Input should be a valid number",
  });
  if (bounds.gt !== undefined) {
    n = n.gt(bounds.gt, { error: `Input should be greater than ${bounds.gt}` });
  }
  if (bounds.ge !== undefined) {
    n = n.gte(bounds.ge, { error: `Input should be greater than or equal to ${bounds.ge}` });
  }
  if (bounds.le !== undefined) {
    n = n.lte(bounds.le, { error: `Input should be less than or equal to ${bounds.le}` });
  }
  return z.preprocess((v) => {
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v === "string" && NUMBER_TEXT.test(v)) return Number(v);
    return v;
  }, n);
}

const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);

/** A `bool` field in lax mode (`"yes"`, `0`, `"False"` ...). */
export function bool() {
  const b = z.boolean({
    error: (iss) =>
      iss.input === undefined
        ? "Field required"
        : typeof iss.input === "string" || typeof iss.input === "number"
        ? "Input should be a valid boolean, unable to interpret input"
        : "Input should be a valid boolean",
  });
  return z.preprocess((v) => {
    if (v === 0 || v === 1) return v === 1;
    if (typeof v === "string") {
      const w = v.trim().toLowerCase();
      if (TRUE_WORDS.has(w)) return true;
      if (FALSE_WORDS.has(w)) return false;
    }
    return v;
  }, b);
}

/** A `Literal[...]` of integers: exact (pydantic does not read `"30"` as 30 here). */
export function literalInts<const T extends readonly [number, ...number[]]>(values: T) {
  const allowed = new Set<number>(values);
  return z.custom<T[number]>((v) => typeof v === "number" && allowed.has(v), {
    error: (iss) => iss.input === undefined ? "Field required" : enumMessage(values),
  });
}

/** A `list[...]` field. */
export function list<T extends z.ZodType>(item: T) {
  return z.array(item, { error: required("Input should be a valid list") });
}

/** The strings the reference's optional fields read as "not given". */
const EMPTY_SENTINELS = new Set(["", ".", "none", "null", "n/a", "na"]);

/** The reference's `_empty_to_none`: placeholder strings become `null`. */
export function emptyToNone(v: unknown): unknown {
  return typeof v === "string" && EMPTY_SENTINELS.has(v.trim().toLowerCase()) ? null : v;
}

/**
 * An optional field (`X | None = None`): absent or `null` reads as `null`.
 * `emptyToNone` applies the reference's before-validator; `doc` is the field's own
 * `Field(description=...)`, when it has one outside the union.
 */
export function optional<T extends z.ZodType>(
  inner: T,
  o: { emptyToNone?: boolean; before?: (v: unknown) => unknown; doc?: FieldDoc } = {},
) {
  const before = o.before ?? (o.emptyToNone ? emptyToNone : undefined);
  const s = before
    ? z.preprocess((v) => (v === undefined ? undefined : before(v)), inner.nullish())
    : inner.nullish();
  return documented(s.optional(), o.doc ?? {});
}

const shapes = new WeakMap<z.ZodType, Readonly<Record<string, z.ZodType>>>();

/**
 * A model: its fields, with `prepare` run on the raw arguments first (where the
 * reference drops an argument before validating). Its shape stays known for the
 * error message.
 */
export function model(
  shape: Readonly<Record<string, z.ZodType>>,
  prepare?: (raw: unknown) => unknown,
): z.ZodType {
  const object = z.object(shape);
  const schema = prepare ? z.preprocess(prepare, object) : object;
  shapes.set(schema, shape);
  return schema;
}

/** The fields of a schema built by {@link model}. */
export function shapeOf(schema: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  return shapes.get(schema);
}
