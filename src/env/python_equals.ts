/**
 * Python's `==` over JSON values: numbers and booleans compare by value (`True == 1`),
 * lists by position, dicts by key set and values.
 */
export function pythonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = _numeric(a);
  const nb = _numeric(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => pythonEquals(v, bb[i]));
  }
  const ka = Object.keys(a);
  const ob = b as Record<string, unknown>;
  if (ka.length !== Object.keys(ob).length) return false;
  return ka.every((k) =>
    Object.hasOwn(ob, k) && pythonEquals((a as Record<string, unknown>)[k], ob[k])
  );
}

function _numeric(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return undefined;
}
