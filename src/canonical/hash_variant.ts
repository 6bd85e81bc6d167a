/**
 * The DB hashes callbench reproduces, by the reference that defines them: `nemo`,
 * NeMo Voice Agent's `evaluation/db_hash.py` (eva_airline and the tau2 suites), and
 * `eva`, EVA-Bench's own `src/eva/utils/hash_utils.py:get_dict_hash` of commit
 * 997ae97 (its IT service desk and medical HR release). Both drop the top-level
 * `session`, turn whole floats into ints and "none"/"null" strings into null, sort
 * the order-independent lists, and hash `json.dumps(sort_keys=True,
 * separators=(",", ":"))`: NeMo's file is a verbatim port of EVA's (unchanged from
 * EVA 0.1.3 to 997ae97), so the two give the same digest for every document. They
 * keep separate names so that a domain says which reference it follows, and each
 * has its own vectors test, computed from its own upstream code: a change on either
 * side shows there first.
 *
 * @module
 */
import { canonicalJson } from "./canonical_json.ts";
import { dbHash } from "./hash.ts";

/** Whose DB hash: NeMo Voice Agent's (`nemo`) or EVA-Bench's own (`eva`). */
export type HashVariant = "nemo" | "eva";

/** The variants, the default first. */
export const HASH_VARIANTS: readonly HashVariant[] = ["nemo", "eva"];

/** The variant of domains that name none (the NeMo harness's). */
export const DEFAULT_HASH_VARIANT: HashVariant = "nemo";

/** The text a variant hashes. */
export function canonicalJsonOf(_variant: HashVariant, doc: unknown): string {
  // One algorithm today (see the module note); the variant stays in every signature.
  return canonicalJson(doc);
}

/** A variant's hash of a document. */
export function dbHashOf(_variant: HashVariant, doc: unknown): string {
  return dbHash(doc);
}
