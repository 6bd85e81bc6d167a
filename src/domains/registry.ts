/**
 * Domains by id, loaded on first use.
 *
 * @module
 */
import type { Domain } from "./domain.ts";
import { closest, InputError } from "../problem/problem.ts";

// A Map, not an object: an id from input ("constructor") must never reach a prototype.
const LOADERS = new Map<string, () => Promise<{ domain: Domain }>>([
  ["eva_airline", () => import("./eva_airline/mod.ts")],
  ["eva_itsm", () => import("./eva_itsm/mod.ts")],
  ["eva_medical_hr", () => import("./eva_medical_hr/mod.ts")],
  ["tau2_airline", () => import("./tau2_airline/mod.ts")],
  ["tau2_retail", () => import("./tau2_retail/mod.ts")],
  ["tau2_telecom", () => import("./tau2_telecom/mod.ts")],
  ["tau2_banking_knowledge", () => import("./tau2_banking_knowledge/mod.ts")],
  ["flow", () => import("./flow/mod.ts")],
]);

export const DOMAIN_IDS: readonly string[] = [...LOADERS.keys()];

const cache = new Map<string, Domain>();

/** Makes a domain of your own available by its id (library users, tests). */
export function registerDomain(domain: Domain): void {
  cache.set(domain.id, domain);
}

/** The domain with this id; an unknown id is an input error naming the closest. */
export async function getDomain(id: string): Promise<Domain> {
  const hit = cache.get(id);
  if (hit) return hit;
  const load = LOADERS.get(id);
  if (!load) {
    const hint = closest(id, [...DOMAIN_IDS, ...cache.keys()]);
    throw new InputError({
      message: `unknown domain "${id}"`,
      hint: hint ? `did you mean "${hint}"?` : `known: ${DOMAIN_IDS.join(", ")}`,
    });
  }
  const { domain } = await load();
  cache.set(id, domain);
  return domain;
}
