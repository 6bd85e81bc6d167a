/**
 * Flags of a command: one table per command, from which both the `node:util`
 * parseArgs options and the "Flags" rows of its `--help` are generated, so the two
 * cannot drift. Usage errors are `InputError`s.
 *
 * A command declares its table once and uses it twice:
 *
 * ```ts
 * const FLAGS = {
 *   out: { type: "string", value: "DIR", description: "where to write files", default: "out/" },
 *   force: { type: "boolean", description: "overwrite edited files" },
 *   domain: { type: "string", value: "X", multiple: true, description: "a suite (repeatable)" },
 * } as const satisfies FlagTable;
 *
 * const help = `thing: does a thing
 *
 * Usage: cli.ts thing [--out DIR] [--force]
 *
 * Flags:
 * ${flagRows(FLAGS)}`;
 *
 * // in main: values.out is string | undefined, values.force boolean | undefined,
 * // values.domain string[] | undefined
 * const { values } = parseFlags(args, FLAGS);
 * ```
 *
 * Row fields: `type` ("string" takes a value, "boolean" is a switch), `value` (the
 * value's name in help, e.g. "DIR"; string flags only), `description` (help text; a
 * "\n" starts an indented continuation line), `default` (shown as "(default X)" at
 * the end of the description; the command applies it itself, so an absent flag stays
 * `undefined` and "not given" can be told from the default), `multiple` (repeatable:
 * the value is a string[]) and `short` (a one-letter alias). A table may be spread from
 * several (`{ ...SELECTION_FLAGS, ...RUN_FLAGS }`) and each part rendered as its own
 * section with `flagRows`.
 *
 * @module
 */
import { parseArgs as nodeParseArgs } from "node:util";
import { closest, InputError } from "../problem/problem.ts";

/** One flag of a command: how it parses and how its help row reads. */
export interface FlagDef {
  /** "string" takes a value; "boolean" is a switch. */
  readonly type: "string" | "boolean";
  /** What the flag does, as its help row says it; "\n" starts a continuation line. */
  readonly description: string;
  /** The value's name in help (`--out DIR`); string flags only. */
  readonly value?: string;
  /** Shown as "(default X)"; applied by the command, not by the parser. */
  readonly default?: string;
  /** Repeatable: the parsed value is a `string[]`. */
  readonly multiple?: boolean;
  /** A one-letter alias (`-o`). */
  readonly short?: string;
}

/** A command's flags by name (without the leading `--`). */
export type FlagTable = Readonly<Record<string, FlagDef>>;

/** The values `parseFlags` returns for a table: each absent flag is `undefined`. */
export interface Parsed<T extends FlagTable> {
  values: {
    [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean
      : T[K]["multiple"] extends true ? string[]
      : string;
  };
  positionals: string[];
}

/** The `node:util` parseArgs options of a table (help-only fields dropped). */
export function parseOptions(
  table: FlagTable,
): Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> {
  return Object.fromEntries(
    Object.entries(table).map(([name, f]) => [
      name,
      {
        type: f.type,
        ...(f.multiple ? { multiple: true } : {}),
        ...(f.short ? { short: f.short } : {}),
      },
    ]),
  );
}

/** The left column of a flag's help row: `--name VALUE` (and `-s, ` for a short alias). */
export function flagLabel(name: string, f: FlagDef): string {
  const value = f.type === "string" ? ` ${f.value ?? "VALUE"}` : "";
  return `${f.short ? `-${f.short}, ` : ""}--${name}${value}`;
}

/**
 * The help rows of a table, one flag each, in table order: the label column is
 * `indent` spaces in and as wide as the widest label, continuation lines align under
 * the description. `extra` rows (positional arguments such as `FILE|DIR`) follow.
 */
export function flagRows(
  table: FlagTable,
  options: { indent?: number; extra?: ReadonlyArray<readonly [string, string]> } = {},
): string {
  const indent = " ".repeat(options.indent ?? 2);
  const rows: [string, string][] = Object.entries(table).map(([name, f]) => [
    flagLabel(name, f),
    f.default === undefined ? f.description : `${f.description} (default ${f.default})`,
  ]);
  for (const [label, text] of options.extra ?? []) rows.push([label, text]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, text]) => {
    const [first, ...rest] = text.split("\n");
    return [
      `${indent}${label.padEnd(width)}${first}`,
      ...rest.map((line) => `${indent}${" ".repeat(width)}${line}`),
    ].join("\n");
  }).join("\n");
}

/** Parses `args` against `table`; an unknown flag names the closest known one. */
export function parseFlags<T extends FlagTable>(args: string[], table: T): Parsed<T> {
  try {
    const { values, positionals } = nodeParseArgs({
      args,
      options: parseOptions(table),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed<T>["values"], positionals };
  } catch (e) {
    const msg = (e as Error).message;
    const m = /Unknown option '(--?[^']+)'/.exec(msg);
    if (m) {
      const hint = closest(m[1]!.replace(/^-+/, ""), Object.keys(table));
      throw new InputError({
        message: `unknown flag ${m[1]}`,
        hint: hint ? `did you mean --${hint}?` : "see --help",
      });
    }
    throw new InputError({ message: msg.replace(/\.$/, "") });
  }
}

/** A positive integer flag, or an input error naming it. */
export function intFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = 1,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new InputError({
      field: `--${name}`,
      message: `expected an integer >= ${min}, got ${JSON.stringify(value)}`,
    });
  }
  return n;
}

/** A flag holding a number from 0 to 1 (undefined when not given), or an input error naming it. */
export function fractionFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new InputError({
      field: `--${name}`,
      message: `expected a number from 0 to 1, got ${JSON.stringify(value)}`,
    });
  }
  return n;
}

/** A flag holding one of `choices` (`fallback` when not given), or an input error naming it. */
export function choiceFlag<C extends string>(
  name: string,
  value: string | undefined,
  choices: readonly C[],
  fallback: C,
): C {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as C;
  throw new InputError({
    field: `--${name}`,
    message: `unknown ${name} ${JSON.stringify(value)}`,
    hint: `one of ${choices.join(", ")}`,
  });
}

/** Comma-separated and repeated values, flattened. */
export function listFlag(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim())
    .filter(Boolean);
}
