/**
 * Python's `json.dumps(x, sort_keys=True, separators=(",", ":"))` with its default
 * `ensure_ascii`: what the eva tools hash to mint content ids. Unlike the DB hash
 * nothing is normalised ("none" stays a string, no list is sorted).
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  compareCodePoints,
  escapeAscii,
  formatPythonNumber,
} from "../../canonical/canonical_json.ts";

/** The compact, key-sorted, ASCII-escaped JSON text Python writes for a JSON value. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return escapeAscii(JSON.stringify(value));
    case "number":
      return formatPythonNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(",")}]`;
      const o = value as Record<string, unknown>;
      const keys = Object.keys(o).sort(compareCodePoints);
      return `{${
        keys.map((k) => `${escapeAscii(JSON.stringify(k))}:${pyJsonDumps(o[k])}`).join(",")
      }}`;
    }
    default:
      return "null";
  }
}

/** Lower-case hex SHA-1 of a text's UTF-8 bytes. */
export function sha1Hex(text: string): string {
  return createHash("sha1").update(text, "utf8").digest("hex");
}
