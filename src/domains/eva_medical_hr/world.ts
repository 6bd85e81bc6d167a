/**
 * What every eva_medical_hr tool shares: the tool factory over the domain's error
 * table, the reference's common errors, authentication checks, case ids, slot
 * booking and the de-duplicated notification log.
 *
 * @module
 */
import { at, dict, get, pyToolFactory, type Rec, setDefault } from "../eva_common/eva_tool.ts";
import { pyJsonDumps } from "../eva_common/python_json.ts";
import { pyRepr } from "../eva_airline/python_text.ts";
import { MEDICAL_HR_ERRORS } from "./params.ts";

export const hrTool = pyToolFactory(MEDICAL_HR_ERRORS);

/** `CASE-<prefix>-<last six of suffix>`. */
export function caseIdFor(prefix: string, suffix: unknown): string {
  return `CASE-${prefix}-${String(suffix).slice(-6)}`;
}

export function employeeNotFound(eid: string): Rec {
  return { status: "error", error_type: "not_found", message: `Employee ${eid} not found` };
}

export function providerNotFound(npi: string): Rec {
  return {
    status: "error",
    error_type: "not_found",
    message: `Provider with NPI ${npi} not found`,
  };
}

export function authRequired(t = "employee_auth"): Rec {
  return {
    status: "error",
    error_type: "authentication_required",
    message: `Authentication (${t}) must be completed before calling this tool`,
  };
}

export function authed(db: Rec, k: string): boolean {
  return dict(db, "session")[k] === true;
}

export function employee(db: Rec, eid: string): Rec | undefined {
  return at(dict(db, "employees"), eid);
}

export function provider(db: Rec, npi: string): Rec | undefined {
  return at(dict(db, "providers"), npi);
}

/** `provider.get("employee_id", npi)`. */
export function providerEmployeeId(p: Rec, npi: string): unknown {
  return get(p, "employee_id", npi);
}

/** The world's `_current_date`, or "" as the reference reads it here. */
export function currentDate(db: Rec): string {
  return get(db, "_current_date", "");
}

/** Appends a notification unless an equal one is logged already. */
export function notify(db: Rec, notification: Rec): void {
  const list: Rec[] = setDefault(db, "notifications", []);
  const text = pyJsonDumps(notification);
  if (!list.some((n) => pyJsonDumps(n) === text)) list.push(notification);
}

/** The free slots of an appointment type, department and date (the list itself). */
export function slotsOf(db: Rec, type: string, department: string, day: string): string[] {
  const byDept = dict(dict(db, "appointment_availability"), type);
  const byDate = dict(byDept, department);
  return get(byDate, day, []);
}

/** Books `YYYY-MM-DD HH:MM` if free (the slot leaves the availability); else the error. */
export function bookSlot(db: Rec, type: string, department: string, when: string): Rec | undefined {
  const parts = when.split(" ");
  if (parts.length !== 2) {
    return {
      status: "error",
      error_type: "invalid_datetime",
      message: `Invalid datetime format: ${when}`,
    };
  }
  const [day, time] = parts as [string, string];
  const slots = slotsOf(db, type, department, day);
  const i = slots.indexOf(time);
  if (i < 0) {
    return {
      status: "error",
      error_type: "slot_not_available",
      message:
        `Time slot ${time} on ${day} is not available for ${type} in ${department}. Available slots: ${
          slots.length ? pyRepr(slots) : "none on this date"
        }`,
    };
  }
  slots.splice(i, 1);
  return undefined;
}
