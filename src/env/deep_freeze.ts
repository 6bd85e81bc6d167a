/** Freezes a JSON document in place, every level, and returns it (at any depth). */
export function deepFreeze<T>(value: T): T {
  freezeWithin(value, Infinity);
  return value;
}

/**
 * Freezes a JSON document in place, every level, without recursion, so a document
 * of any depth is walked; false (and the document partly frozen) when it is nested
 * deeper than `maxDepth` (`{}` is depth 1). An object already frozen is taken as
 * checked and not walked again. One walk does both: a world is frozen as it loads.
 */
export function freezeWithin(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v !== "object" || v === null || Object.isFrozen(v)) continue;
    if (depth >= maxDepth) return false;
    Object.freeze(v);
    if (Array.isArray(v)) {
      for (const x of v) {
        values.push(x);
        depths.push(depth + 1);
      }
    } else {
      for (const k in v) {
        values.push((v as Record<string, unknown>)[k]);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}
