/**
 * Trial keys: what identifies a trial across runs, shards and resumes.
 *
 * @module
 */
import { canonicalJson } from "../canonical/canonical_json.ts";
import { sha256Hex } from "../canonical/hash.ts";
import type { TrialKey } from "./trial_record.ts";

/** A short hash of whatever shapes a call (participants, models, limits). */
export function configHash(config: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(config)).slice(0, 16);
}

/** The key of trial `trial` of `scenario`; its seed comes from the rest with SHA-256. */
export function trialKey(scenario: string, trial: number, config: string): TrialKey {
  const seed = sha256Hex(`${scenario}\n${trial}\n${config}`).slice(0, 16);
  return { scenario, trial, seed, config_hash: config };
}

/** One string per trial key, for de-duplication and resume. */
export function keyId(key: Pick<TrialKey, "scenario" | "trial" | "config_hash">): string {
  return `${key.scenario}\u0000${key.trial}\u0000${key.config_hash}`;
}

/** The shard (0-based) a trial belongs to out of `count`: deterministic by key. */
export function shardOf(key: TrialKey, count: number): number {
  const h = sha256Hex(keyId(key));
  return Number(BigInt("0x" + h.slice(0, 12)) % BigInt(count));
}
