/**
 * What every eva_itsm tool shares: the tool factory over the domain's error tables,
 * the reference's common errors, authentication checks, content-hash ids and the
 * building and parking-zone names a caller may use.
 *
 * @module
 */
import { pyJsonDumps, sha1Hex } from "../eva_common/python_json.ts";
import { at, dict, pyToolFactory, type Rec } from "../eva_common/eva_tool.ts";
import { ITSM_ERRORS } from "./params.ts";

export const itsmTool = pyToolFactory(ITSM_ERRORS);

/** The reference's date when a world has none. */
const DEFAULT_CURRENT_DATE = "2026-08-12";

/** The world's "today" (`_current_date`). */
export function currentDate(db: Rec): string {
  return Object.hasOwn(db, "_current_date") ? db._current_date : DEFAULT_CURRENT_DATE;
}

export function employeeNotFound(eid: string): Rec {
  return { status: "error", error_type: "not_found", message: `Employee ${eid} not found` };
}

export function authRequired(t = "employee_auth"): Rec {
  return {
    status: "error",
    error_type: "authentication_required",
    message: `Authentication (${t}) required`,
  };
}

/** Whether the session holds this authentication. */
export function authed(db: Rec, k: string): boolean {
  return dict(db, "session")[k] === true;
}

/** `db.get("employees", {}).get(eid)`. */
export function employee(db: Rec, eid: string): Rec | undefined {
  return at(dict(db, "employees"), eid);
}

// Ids minted from content: any id-shaped string inside the record, and the fields
// tools change after creation, are left out so the id never moves.
const ID_STRIP = /^(REQ-[A-Z]+-|INC|CASE-[A-Z]+-|SEC-|CAL-)[A-Za-z0-9]+$/;
const POST_CREATION_MUTABLE_FIELDS = new Set([
  "status",
  "resolved_date",
  "sla_tier",
  "sla_response_hours",
  "sla_resolution_hours",
  "linked_known_error_id",
  "dispatch_id",
  "dispatch_date",
  "dispatch_window",
  "diagnostic_ref_code",
  "diagnostic_attached",
  "approval_routed_to",
  "approval_sla_deadline",
  "escalated_to",
  "escalation_sla_deadline",
  "remote_wipe_id",
  "access_review_id",
  "review_date",
]);

function stripIds(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripIds);
  if (typeof v === "object" && v !== null) {
    const out: Rec = {};
    for (const [k, x] of Object.entries(v)) {
      if (!POST_CREATION_MUTABLE_FIELDS.has(k)) out[k] = stripIds(x);
    }
    return out;
  }
  if (typeof v === "string" && ID_STRIP.test(v)) return null;
  return v;
}

/** The first 12 hex digits of the SHA-1 of a record's id-free content. */
export function contentHash(record: unknown): string {
  return sha1Hex(pyJsonDumps(stripIds(record))).slice(0, 12);
}

export const requestIdFor = (record: unknown, cat: string) => `REQ-${cat}-${contentHash(record)}`;
export const caseIdFor = (record: unknown, cat: string) => `CASE-${cat}-${contentHash(record)}`;
export const ticketNumberFor = (record: unknown) => `INC${contentHash(record)}`;
export const securityCaseIdFor = (record: unknown) => `SEC-${contentHash(record)}`;

/** Lower case, Unicode punctuation and symbols dropped, trimmed (any script). */
export function normalizeAlias(s: string): string {
  return s.toLowerCase().replace(/[\p{P}\p{S}]/gu, "").trim();
}

/** Whether a caller's name matches a catalog entry's name or one of its aliases. */
export function catalogMatch(name: string, entry: Rec): boolean {
  const target = normalizeAlias(name);
  if (normalizeAlias(entry.name ?? "") === target) return true;
  return ((entry.name_aliases ?? []) as string[]).some((a) => target === normalizeAlias(a));
}

/** The first catalog entry a name matches, with its id. */
export function findCatalogEntry(entries: Rec, name: string): [string, Rec] | [null, null] {
  for (const [cid, entry] of Object.entries(entries)) {
    if (catalogMatch(name, entry)) return [cid, entry];
  }
  return [null, null];
}

const BUILDING_CODE = /^BLD\d{1,2}$/;
const ZONE_CODE = /^PZ[A-Z]$/;

/** A building or parking zone as the caller names it, resolved to its code. */
export function resolveFacility(
  kind: "building" | "zone",
  value: string | null,
  db: Rec,
): [string | null, Rec | null] {
  if (value === null) return [null, null];
  const facilities = dict(db, "facilities");
  const table = dict(facilities, kind === "building" ? "buildings" : "zones");
  const label = kind === "building" ? "Building" : "Parking zone";
  if ((kind === "building" ? BUILDING_CODE : ZONE_CODE).test(value)) return [value, null];
  const target = normalizeAlias(value);
  for (const [code, entry] of Object.entries(table)) {
    if (normalizeAlias(entry.name ?? "") === target) return [code, null];
    if (((entry.name_aliases ?? []) as string[]).some((a) => target === normalizeAlias(a))) {
      return [code, null];
    }
  }
  const known = Object.values(table).map((e) => e.name).filter((n) => n);
  return [null, {
    status: "error",
    error_type: "name_not_found",
    message: `${label} '${value}' not recognized. Provide a code or a known name. Known names: ${
      known.length ? known.join(", ") : "(none on file)"
    }.`,
  }];
}

/** Whether an employee's department and role let them join a group (empty = any). */
export function groupEligible(group: Rec, emp: Rec): boolean {
  const depts: unknown[] = group.eligible_departments || [];
  const roles: unknown[] = group.eligible_roles || [];
  if (depts.length && !depts.includes(emp.department_code)) return false;
  if (roles.length && !roles.includes(emp.role_code)) return false;
  return true;
}
