import { createHash, type Hash } from "node:crypto";
import { canonicalBytes, canonicalStream } from "./canonical_json.ts";

/** Lower-case hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

// The digest of a frozen document, by identity: a world no call has changed is the
// same frozen object, and hashing it again costs a lookup.
const digests = new WeakMap<object, string>();

/**
 * The reference harness's canonical DB hash (reference-harness §4): SHA-256 of the
 * canonical text, streamed in pieces of about 32 K chars (and cached records' texts),
 * so the whole text is never built. Cached for frozen documents.
 */
export function dbHash(doc: unknown): string {
  const frozen = typeof doc === "object" && doc !== null && Object.isFrozen(doc);
  if (frozen) {
    const hit = digests.get(doc);
    if (hit !== undefined) return hit;
  }
  const hash = createHash("sha256");
  // A frozen document is streamed as text, whose records' texts are cached for the
  // next world sharing them; a fresh one is hashed once, written straight as bytes.
  if (frozen) canonicalStream(doc, (piece) => _update(hash, piece));
  else canonicalBytes(doc, (bytes) => void hash.update(bytes));
  const digest = hash.digest("hex");
  if (frozen) digests.set(doc, digest);
  return digest;
}

// A big piece goes in slices: each is encoded into a buffer that stays in the CPU's
// cache, where a 10 MB piece would be encoded into a 10 MB buffer first.
const SLICE = 1 << 16;

function _update(hash: Hash, text: string): void {
  if (text.length <= SLICE) {
    hash.update(text, "utf8");
    return;
  }
  for (let i = 0; i < text.length;) {
    let end = Math.min(i + SLICE, text.length);
    // Never between the halves of a surrogate pair (canonical text is ASCII anyway).
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
    hash.update(text.slice(i, end), "utf8");
    i = end;
  }
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
