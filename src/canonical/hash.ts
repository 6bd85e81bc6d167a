import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical_json.ts";

/** Lower-case hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The reference harness's canonical DB hash (reference-harness §4). */
export function dbHash(doc: unknown): string {
  return sha256Hex(canonicalJson(doc));
}

/**
 * The hash a bot reports for its live DB: `null` when the DB is missing or empty,
 * as the reference does.
 */
export function dbHashOrNull(doc: unknown): string | null {
  if (doc === null || doc === undefined) return null;
  if (typeof doc === "object" && Object.keys(doc).length === 0) return null;
  return dbHash(doc);
}
