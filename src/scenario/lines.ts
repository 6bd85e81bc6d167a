/**
 * Where a scenario loaded from a file was written: each scenario object remembers a
 * function from a field path to its line, so checks made after loading (unknown
 * domain, tool or world, a duplicate name) are located like schema problems are.
 *
 * @module
 */

/** A field path: `["agent", "tools", 2]` is `agent.tools[2]`. */
export type FieldPath = readonly (string | number)[];

const lines = new WeakMap<object, (path: FieldPath) => number | undefined>();

/** Records how to find the line of a field of `scenario`. */
export function rememberLines(
  scenario: object,
  lineOf: (path: FieldPath) => number | undefined,
): void {
  lines.set(scenario, lineOf);
}

/** Carries the line finder of `from` over to a copy of it. */
export function copyLines(from: object, to: object): void {
  const f = lines.get(from);
  if (f) lines.set(to, f);
}

/** The line of `path` (or of its nearest written ancestor) in the scenario's file. */
export function lineOf(scenario: object, path: FieldPath): number | undefined {
  return lines.get(scenario)?.(path);
}
