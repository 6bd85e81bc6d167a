/** Freezes a JSON document in place, every level, and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const v of value) deepFreeze(v);
  } else {
    for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}
