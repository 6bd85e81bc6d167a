/**
 * Flag parsing on `node:util` parseArgs, with usage errors as `InputError`s.
 *
 * @module
 */
import { parseArgs as nodeParseArgs } from "node:util";
import { closest, InputError } from "../problem/problem.ts";

export type FlagSpec = Record<
  string,
  { type: "string" | "boolean"; multiple?: boolean; short?: string }
>;

export interface Parsed<T extends FlagSpec> {
  values: {
    [K in keyof T]?: T[K]["type"] extends "boolean" ? boolean
      : T[K]["multiple"] extends true ? string[]
      : string;
  };
  positionals: string[];
}

/** Parses `args` against `spec`; an unknown flag names the closest known one. */
export function parseFlags<T extends FlagSpec>(args: string[], spec: T): Parsed<T> {
  try {
    const { values, positionals } = nodeParseArgs({
      args,
      options: spec,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Parsed<T>["values"], positionals };
  } catch (e) {
    const msg = (e as Error).message;
    const m = /Unknown option '(--?[^']+)'/.exec(msg);
    if (m) {
      const hint = closest(m[1]!.replace(/^-+/, ""), Object.keys(spec));
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

/** Comma-separated and repeated values, flattened. */
export function listFlag(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(",")).map((v) => v.trim())
    .filter(Boolean);
}
