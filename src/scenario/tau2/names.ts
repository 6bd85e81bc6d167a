/**
 * Scenario names and order of the tau2 suites, as the reference registers them:
 * `tau2_retail__<id>` in numeric id order; telecom ids such as
 * `[mms_issue]bad_wifi_calling|break_apn_mms_setting[PERSONA:Hard]` become
 * `tau2_telecom__mms_issue__bad_wifi_calling__break_apn_mms_setting__hard` (a `None`
 * persona adds nothing), in alphabetical order of the task ids.
 *
 * @module
 */
import { compareCodePoints } from "../../canonical/canonical_json.ts";

/** `<suite>__<id>`, for numbered tasks (airline, retail). */
export function numberedName(suite: string, id: string): string {
  return `${suite}__${id}`;
}

const TELECOM_ID = /^\[([^\]]+)\](.+)\[PERSONA:([^\]]+)\]$/;

/** The scenario name of a telecom task id, or undefined when the id is not of that form. */
export function telecomName(suite: string, id: string): string | undefined {
  const m = TELECOM_ID.exec(id);
  if (!m) return undefined;
  const [, category, issues, persona] = m as unknown as [string, string, string, string];
  const parts = [suite, category, ...issues.split("|")];
  if (persona !== "None") parts.push(persona.toLowerCase());
  return parts.join("__");
}

/**
 * Numeric ids by value, as the reference's scaffolds sort them; any other id after
 * them, as text.
 */
export function compareNumericIds(a: string, b: string): number {
  const x = /^\d+$/.test(a) ? Number(a) : NaN;
  const y = /^\d+$/.test(b) ? Number(b) : NaN;
  if (Number.isNaN(x) !== Number.isNaN(y)) return Number.isNaN(x) ? 1 : -1;
  if (!Number.isNaN(x) && x !== y) return x - y;
  return compareCodePoints(a, b);
}

/** Python's `sorted()` of strings. */
export function compareIds(a: string, b: string): number {
  return compareCodePoints(a, b);
}
