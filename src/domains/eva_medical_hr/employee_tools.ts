/**
 * eva_medical_hr's employee flows: shift swaps, onboarding tasks, FMLA leave with a
 * return-to-work check-in, payroll corrections, on-call registration, I-9
 * verification, visa dependents and PTO, with the department manager, HR
 * compliance and immigration counsel notified; and the hand-over to a live agent.
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy, zfill } from "../eva_common/eva_tool.ts";
import { choice, documented, float, list, str } from "../eva_common/pydantic.ts";
import { addDays, formatDate, parseDate, weekday } from "../eva_common/py_date.ts";
import { pyFloat, pyRepr, pyStr } from "../eva_airline/python_text.ts";
import {
  appointmentDatetime,
  caseId,
  CORRECTION_TYPES,
  countryCode,
  DATE,
  date,
  departmentCode,
  employeeId,
  HR_COMPLIANCE_NOTIFICATIONS,
  I9_ACTIONS,
  i9DocumentCode,
  i9ListType,
  IMMIGRATION_NOTIFICATIONS,
  LEAVE_CATEGORIES,
  MANAGER_NOTIFICATIONS,
  onboardingTask,
  ONCALL_TIERS,
  PTO_TYPES,
  RELATIONSHIPS,
  shiftId,
  unitCode,
  uscisReceipt,
  visaPetition,
} from "./params.ts";
import {
  authed,
  authRequired,
  bookSlot,
  caseIdFor,
  currentDate,
  employee,
  employeeNotFound,
  hrTool,
  notify,
} from "./world.ts";

type Rec = Record<string, unknown>;

function shiftNotFound(id: string): Rec {
  return { status: "error", error_type: "shift_not_found", message: `Shift ${id} not found` };
}

function shift(db: Rec, id: string): Rec | undefined {
  return at(dict(db, "shifts"), id);
}

function ownShift(db: Rec, p: { employee_id: string; shift_id: string }): Rec {
  if (!authed(db, "employee_auth")) return authRequired("employee_auth");
  const s = shift(db, p.shift_id);
  if (!truthy(s)) return shiftNotFound(p.shift_id);
  if (s!.employee_id !== p.employee_id) {
    return {
      status: "error",
      error_type: "shift_not_owned",
      message: `Shift ${p.shift_id} does not belong to employee ${p.employee_id}`,
    };
  }
  return { status: "success", shift: clone(s) };
}

export const getShiftRecord = hrTool({
  name: "get_shift_record",
  kind: "read",
  description: "Look up one of the employee's shifts.",
  args: { employee_id: employeeId(), shift_id: shiftId() },
  run: (p, db) => ownShift(db, p),
});

export const checkSwapEligibility = hrTool({
  name: "check_swap_eligibility",
  kind: "read",
  description: "Check whether a shift can be swapped, and which certifications its unit needs.",
  args: { employee_id: employeeId(), shift_id: shiftId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const s = shift(db, p.shift_id);
    if (!truthy(s)) return shiftNotFound(p.shift_id);
    if (s!.status === "swapped") {
      return {
        status: "error",
        error_type: "already_swapped",
        message: "This shift has already been swapped",
      };
    }
    if (s!.status === "cancelled") {
      return {
        status: "error",
        error_type: "shift_cancelled",
        message: "Cannot swap a cancelled shift",
      };
    }
    const today = currentDate(db);
    const day = get(s, "date", "");
    if (truthy(day) && truthy(today) && day < today) {
      return {
        status: "error",
        error_type: "shift_in_past",
        message:
          `Shift date ${day} is in the past (current date: ${today}). Cannot swap a past shift.`,
      };
    }
    if (truthy(s!.swap_locked)) {
      return {
        status: "error",
        error_type: "swap_locked",
        message: "Shift is within the 24-hour swap lockout window",
      };
    }
    const unit = s!.unit_code ?? null;
    const required = [...(get(dict(db, "unit_cert_requirements"), String(unit), []) as string[])]
      .sort();
    return {
      status: "success",
      eligible: true,
      shift_date: s!.date ?? null,
      unit_code: unit,
      required_cert_codes: required,
      message: "Shift is eligible for swap",
    };
  },
});

function missingCerts(db: Rec, unit: string, held: unknown): string[] {
  const required = get(dict(db, "unit_cert_requirements"), unit, []) as string[];
  const have = new Set(held as string[]);
  return [...new Set(required)].filter((c) => !have.has(c)).sort();
}

export const verifyColleagueCertifications = hrTool({
  name: "verify_colleague_certifications",
  kind: "read",
  description: "Check that a colleague holds every certification a unit requires.",
  args: { colleague_employee_id: employeeId(), unit_code: unitCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const colleague = employee(db, p.colleague_employee_id);
    if (!truthy(colleague)) return employeeNotFound(p.colleague_employee_id);
    const missing = missingCerts(db, p.unit_code, get(colleague, "certifications", []));
    if (missing.length) {
      return {
        status: "error",
        error_type: "certification_missing",
        message: `Colleague ${p.colleague_employee_id} is missing: ${pyRepr(missing)}`,
        missing_certs: missing,
      };
    }
    const required = get(dict(db, "unit_cert_requirements"), p.unit_code, []) as string[];
    return {
      status: "success",
      colleague_employee_id: p.colleague_employee_id,
      unit_code: p.unit_code,
      certifications_verified: [...required].sort(),
      message: "All required certifications verified",
    };
  },
});

export const confirmShiftSwap = hrTool({
  name: "confirm_shift_swap",
  kind: "write",
  description: "Record a shift swap with a colleague.",
  args: {
    employee_id: employeeId(),
    shift_id: shiftId(),
    colleague_employee_id: employeeId(),
    unit_code: unitCode(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const s = shift(db, p.shift_id);
    if (!truthy(s)) return shiftNotFound(p.shift_id);
    const cid = caseIdFor("SWP", p.employee_id);
    Object.assign(s!, {
      status: "swapped",
      swapped_to_employee_id: p.colleague_employee_id,
      swap_confirmation_id: cid,
    });
    return {
      status: "success",
      shift_id: p.shift_id,
      original_employee_id: p.employee_id,
      new_employee_id: p.colleague_employee_id,
      unit_code: p.unit_code,
      case_id: cid,
      message: `Shift swap confirmed. Case ID: ${cid}`,
    };
  },
});

export const notifyDepartmentManager = hrTool({
  name: "notify_department_manager",
  kind: "write",
  description: "Notify the employee's department manager of a completed HR action.",
  args: {
    employee_id: employeeId(),
    case_id: caseId(),
    notification_type: choice(MANAGER_NOTIFICATIONS),
  },
  run(p, db) {
    if (!authed(db, "employee_auth") && !authed(db, "otp_auth")) {
      return authRequired("employee_auth or otp_auth");
    }
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    notify(db, {
      recipient: "department_manager",
      employee_id: p.employee_id,
      department_code: emp!.department_code ?? null,
      case_id: p.case_id,
      notification_type: p.notification_type,
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      case_id: p.case_id,
      notification_type: p.notification_type,
      message: `Department manager notified: ${p.notification_type}`,
    };
  },
});

function onboardingAuth(db: Rec): Rec | undefined {
  if (!authed(db, "employee_auth") && !authed(db, "otp_auth")) {
    return authRequired("employee_auth or otp_auth");
  }
  return undefined;
}

export const getOnboardingChecklist = hrTool({
  name: "get_onboarding_checklist",
  kind: "read",
  description: "Look up a new hire's onboarding checklist.",
  args: { employee_id: employeeId() },
  run(p, db) {
    const denied = onboardingAuth(db);
    if (denied) return denied;
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const checklist = emp!.onboarding_checklist;
    if (!truthy(checklist)) {
      return {
        status: "error",
        error_type: "checklist_not_found",
        message: `No onboarding checklist found for ${p.employee_id}`,
      };
    }
    return { status: "success", onboarding_checklist: clone(checklist) };
  },
});

export const completeOnboardingTask = hrTool({
  name: "complete_onboarding_task",
  kind: "write",
  description: "Mark one onboarding task complete with its completion code.",
  args: {
    employee_id: employeeId(),
    task_code: onboardingTask(),
    completion_code: str({
      pattern: /^[A-Za-z0-9]{4}$/,
      description:
        "4-character alphanumeric completion code provided by the employee upon finishing the task. Example: AB12",
    }),
  },
  run(p, db) {
    const denied = onboardingAuth(db);
    if (denied) return denied;
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const tasks = dict(dict(emp, "onboarding_checklist"), "tasks");
    if (!Object.hasOwn(tasks, p.task_code)) {
      return {
        status: "error",
        error_type: "task_not_found",
        message: `Task ${p.task_code} not in checklist for ${p.employee_id}`,
      };
    }
    const task = tasks[p.task_code];
    if (task.status === "complete") {
      return {
        status: "error",
        error_type: "task_already_complete",
        message: `Task ${p.task_code} is already marked complete`,
      };
    }
    const expected = get(task, "completion_code", "");
    if (truthy(expected) && p.completion_code.toUpperCase() !== String(expected).toUpperCase()) {
      return {
        status: "error",
        error_type: "invalid_completion_code",
        message:
          `Completion code does not match for task ${p.task_code}. Please verify and try again.`,
      };
    }
    task.status = "complete";
    const remaining = Object.entries(tasks).filter(([, v]) => v.status !== "complete").map(([t]) =>
      t
    );
    return {
      status: "success",
      employee_id: p.employee_id,
      task_code: p.task_code,
      remaining_tasks: remaining,
      message: `Task ${p.task_code} marked complete. ${remaining.length} task(s) remaining.`,
    };
  },
});

export const scheduleOrientationFollowup = hrTool({
  name: "schedule_orientation_followup",
  kind: "write",
  description: "Book an orientation follow-up slot after onboarding.",
  args: {
    employee_id: employeeId(),
    department_code: departmentCode(),
    appointment_datetime: appointmentDatetime(),
  },
  run(p, db) {
    const denied = onboardingAuth(db);
    if (denied) return denied;
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const err = bookSlot(db, "orientation_followup", p.department_code, p.appointment_datetime);
    if (err) return err;
    const appt = caseIdFor("ORI", p.employee_id);
    setDefault(emp!, "scheduled_appointments", []).push({
      appointment_id: appt,
      type: "orientation_followup",
      department_code: p.department_code,
      appointment_datetime: p.appointment_datetime,
      status: "scheduled",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      appointment_id: appt,
      department_code: p.department_code,
      appointment_datetime: p.appointment_datetime,
      message:
        `Orientation follow-up scheduled for ${p.appointment_datetime}. Appointment ID: ${appt}`,
    };
  },
});

export const checkLeaveEligibility = hrTool({
  name: "check_leave_eligibility",
  kind: "read",
  description: "Check FMLA eligibility (12 months employed, 1,250 hours in the past year).",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const e = dict(emp, "fmla_eligibility");
    if (!truthy(e.eligible)) {
      return {
        status: "error",
        error_type: "not_eligible",
        message: get(e, "reason", "Employee does not meet FMLA eligibility requirements"),
        months_employed: e.months_employed ?? null,
        hours_worked_past_year: e.hours_worked_past_year ?? null,
      };
    }
    return {
      status: "success",
      eligible: true,
      months_employed: e.months_employed ?? null,
      hours_worked_past_year: e.hours_worked_past_year ?? null,
      fmla_weeks_remaining: e.fmla_weeks_remaining ?? null,
      message: "Employee is eligible for FMLA leave",
    };
  },
});

export const submitFmlaCase = hrTool({
  name: "submit_fmla_case",
  kind: "write",
  description: "Open an FMLA leave case.",
  args: {
    employee_id: employeeId(),
    leave_category: choice(LEAVE_CATEGORIES),
    leave_start_date: date(),
    leave_end_date: date(),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const cid = caseIdFor("FMLA", p.employee_id);
    setDefault(emp!, "leave_records", []).push({
      case_id: cid,
      leave_category: p.leave_category,
      leave_start_date: p.leave_start_date,
      leave_end_date: p.leave_end_date,
      status: "open",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      case_id: cid,
      leave_category: p.leave_category,
      leave_start_date: p.leave_start_date,
      leave_end_date: p.leave_end_date,
      message: `FMLA case opened. Case ID: ${cid}`,
    };
  },
});

export const scheduleReturnToWorkCheckin = hrTool({
  name: "schedule_return_to_work_checkin",
  kind: "write",
  description: "Book a return-to-work check-in on or after an FMLA case's leave end date.",
  args: {
    employee_id: employeeId(),
    case_id: caseId(),
    department_code: departmentCode(),
    appointment_datetime: appointmentDatetime(),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const fmla = (get(emp, "leave_records", []) as Rec[]).find((r) => r.case_id === p.case_id);
    if (truthy(fmla)) {
      const leaveEnd = get(fmla, "leave_end_date", "");
      const day = p.appointment_datetime.includes(" ")
        ? p.appointment_datetime.split(" ")[0]!
        : p.appointment_datetime;
      if (truthy(leaveEnd) && day < leaveEnd) {
        return {
          status: "error",
          error_type: "appointment_before_leave_end",
          message:
            `Return-to-work check-in must be scheduled on or after the leave end date (${leaveEnd}). Requested date: ${day}`,
        };
      }
    }
    const err = bookSlot(db, "return_to_work_checkin", p.department_code, p.appointment_datetime);
    if (err) return err;
    const appt = caseIdFor("RTW", p.employee_id);
    setDefault(emp!, "scheduled_appointments", []).push({
      appointment_id: appt,
      type: "return_to_work_checkin",
      fmla_case_id: p.case_id,
      appointment_datetime: p.appointment_datetime,
      status: "scheduled",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      appointment_id: appt,
      case_id: p.case_id,
      appointment_datetime: p.appointment_datetime,
      message:
        `Return-to-work check-in scheduled for ${p.appointment_datetime}. Appointment ID: ${appt}`,
    };
  },
});

export const getTimesheetRecord = hrTool({
  name: "get_timesheet_record",
  kind: "read",
  description: "Look up the timesheet entry of one of the employee's shifts.",
  args: { employee_id: employeeId(), shift_id: shiftId() },
  run: (p, db) => ownShift(db, p),
});

export const checkCorrectionEligibility = hrTool({
  name: "check_correction_eligibility",
  kind: "read",
  description: "Check whether a shift's payroll can be corrected.",
  args: { employee_id: employeeId(), shift_id: shiftId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const s = shift(db, p.shift_id);
    if (!truthy(s)) return shiftNotFound(p.shift_id);
    if (s!.correction_status === "pending") {
      return {
        status: "error",
        error_type: "correction_already_pending",
        message: "A correction is already pending for this shift",
      };
    }
    if (truthy(s!.pay_period_closed)) {
      return {
        status: "error",
        error_type: "pay_period_closed",
        message: "The pay period for this shift is closed and cannot be corrected",
      };
    }
    if (s!.status !== "logged" && s!.status !== "approved") {
      return {
        status: "error",
        error_type: "shift_not_logged",
        message: "Shift must be in logged or approved status to submit a correction",
      };
    }
    return {
      status: "success",
      eligible: true,
      shift_id: p.shift_id,
      logged_hours: s!.hours_logged ?? null,
      message: "Shift is eligible for payroll correction",
    };
  },
});

export const submitPayrollCorrection = hrTool({
  name: "submit_payroll_correction",
  kind: "write",
  description: "Submit the corrected total hours of a shift.",
  args: {
    employee_id: employeeId(),
    shift_id: shiftId(),
    correction_type: choice(CORRECTION_TYPES),
    corrected_hours: documented(float({ gt: 0, le: 24 }), {
      description:
        "Correct total hours for the shift (not the delta). Example: 12.0 if 12 hours were worked.",
      examples: ["8.0", "12.0", "12.5"],
    }),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const s = shift(db, p.shift_id);
    if (!truthy(s)) return shiftNotFound(p.shift_id);
    const periodEnd = s!.pay_period_end_date;
    if (!truthy(periodEnd)) {
      return {
        status: "error",
        error_type: "pay_period_not_set",
        message: `No pay period end date found for shift ${p.shift_id}`,
      };
    }
    const today = currentDate(db);
    if (truthy(today) && (periodEnd as string) < today) {
      return {
        status: "error",
        error_type: "pay_period_closed",
        message: `Pay period ending ${
          pyStr(periodEnd)
        } has already closed (current date: ${today}). Correction cannot be submitted.`,
      };
    }
    const cid = caseIdFor("PAY", p.employee_id);
    Object.assign(s!, {
      corrected_hours: p.corrected_hours,
      correction_type: p.correction_type,
      correction_case_id: cid,
      correction_status: "pending",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      shift_id: p.shift_id,
      correction_type: p.correction_type,
      corrected_hours: p.corrected_hours,
      pay_period_end_date: periodEnd,
      case_id: cid,
      message: `Payroll correction submitted. Case ID: ${cid}`,
    };
  },
});

export const getOncallSchedule = hrTool({
  name: "get_oncall_schedule",
  kind: "read",
  description: "Look up the employee's on-call registrations.",
  args: { employee_id: employeeId(), unit_code: unitCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    return {
      status: "success",
      employee_id: p.employee_id,
      unit_code: p.unit_code,
      oncall_schedule: clone(get(emp, "oncall_schedule", {})),
    };
  },
});

export const checkOncallEligibility = hrTool({
  name: "check_oncall_eligibility",
  kind: "read",
  description: "Check whether the employee may register for on-call on a unit.",
  args: { employee_id: employeeId(), unit_code: unitCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.employment_status === "on_leave") {
      return {
        status: "error",
        error_type: "employee_on_leave",
        message: "Employee is on leave and cannot register for on-call shifts",
      };
    }
    const missing = missingCerts(db, p.unit_code, get(emp, "certifications", []));
    if (missing.length) {
      return {
        status: "error",
        error_type: "certification_missing",
        message: `Missing certifications for unit ${p.unit_code}: ${pyRepr(missing)}`,
        missing_certs: missing,
      };
    }
    return {
      status: "success",
      eligible: true,
      employee_id: p.employee_id,
      unit_code: p.unit_code,
      message: "Employee is eligible to register for on-call on this unit",
    };
  },
});

export const registerOncallAvailability = hrTool({
  name: "register_oncall_availability",
  kind: "write",
  description: "Register an on-call availability window with its blackout dates.",
  args: {
    employee_id: employeeId(),
    unit_code: unitCode(),
    availability_start_date: date(),
    availability_end_date: date(),
    oncall_tier: choice(ONCALL_TIERS),
    blackout_dates: list(str({ pattern: DATE })),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    for (const bd of p.blackout_dates) {
      if (!(p.availability_start_date <= bd && bd <= p.availability_end_date)) {
        return {
          status: "error",
          error_type: "invalid_blackout_date",
          message:
            `Blackout date ${bd} is outside the availability window (${p.availability_start_date} – ${p.availability_end_date})`,
        };
      }
    }
    const reg = caseIdFor("ONC", p.employee_id);
    setDefault(setDefault(emp!, "oncall_schedule", {}), "registrations", []).push({
      registration_id: reg,
      unit_code: p.unit_code,
      availability_start_date: p.availability_start_date,
      availability_end_date: p.availability_end_date,
      oncall_tier: p.oncall_tier,
      blackout_dates: [...p.blackout_dates],
      status: "registered",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      registration_id: reg,
      unit_code: p.unit_code,
      availability_start_date: p.availability_start_date,
      availability_end_date: p.availability_end_date,
      oncall_tier: p.oncall_tier,
      blackout_dates: [...p.blackout_dates],
      message: `On-call availability registered. Registration ID: ${reg}`,
    };
  },
});

export const getI9Record = hrTool({
  name: "get_i9_record",
  kind: "read",
  description: "Look up the employee's I-9 verification record.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const i9 = emp!.i9_record;
    if (!truthy(i9)) {
      return {
        status: "error",
        error_type: "i9_record_not_found",
        message: `No I-9 record found for ${p.employee_id}`,
      };
    }
    return { status: "success", i9_record: clone(i9) };
  },
});

export const submitI9Verification = hrTool({
  name: "submit_i9_verification",
  kind: "write",
  description: "Record an I-9 document verification or reverification.",
  args: {
    employee_id: employeeId(),
    verification_action: choice(I9_ACTIONS),
    document_list_type: i9ListType(),
    document_type_code: i9DocumentCode(),
    document_number: str({
      pattern: /^[A-Z0-9]{6,12}$/,
      description: "Document ID number: 6-12 uppercase alphanumeric characters",
      examples: ["A12345678", "D4829301"],
    }),
    document_expiration_date: date(),
    issuing_country_code: countryCode(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const cid = caseIdFor("I9V", p.employee_id);
    let i9 = emp!.i9_record as Rec;
    if (!truthy(i9)) {
      i9 = {};
      emp!.i9_record = i9;
      i9 = emp!.i9_record as Rec;
    }
    Object.assign(i9, {
      verification_action: p.verification_action,
      document_list_type: p.document_list_type,
      document_type_code: p.document_type_code,
      document_number: p.document_number,
      document_expiration_date: p.document_expiration_date,
      issuing_country_code: p.issuing_country_code,
      verification_status: "verified",
      case_id: cid,
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      verification_action: p.verification_action,
      document_list_type: p.document_list_type,
      document_type_code: p.document_type_code,
      document_number: p.document_number,
      document_expiration_date: p.document_expiration_date,
      issuing_country_code: p.issuing_country_code,
      case_id: cid,
      message: `I-9 ${p.verification_action} completed. Case ID: ${cid}`,
    };
  },
});

export const notifyHrCompliance = hrTool({
  name: "notify_hr_compliance",
  kind: "write",
  description: "Notify HR compliance of a completed I-9 verification.",
  args: {
    employee_id: employeeId(),
    case_id: caseId(),
    notification_type: choice(HR_COMPLIANCE_NOTIFICATIONS),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    if (!truthy(employee(db, p.employee_id))) return employeeNotFound(p.employee_id);
    notify(db, {
      recipient: "hr_compliance",
      employee_id: p.employee_id,
      case_id: p.case_id,
      notification_type: p.notification_type,
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      case_id: p.case_id,
      notification_type: p.notification_type,
      message: `HR compliance notified: ${p.notification_type}`,
    };
  },
});

function visaOf(db: Rec, p: { employee_id: string; visa_petition_number: string }) {
  if (!authed(db, "otp_auth")) return { error: authRequired("otp_auth") };
  const emp = employee(db, p.employee_id);
  if (!truthy(emp)) return { error: employeeNotFound(p.employee_id) };
  const visa = emp!.visa_record as Rec | undefined;
  if (!truthy(visa) || visa!.petition_number !== p.visa_petition_number) {
    return {
      error: {
        status: "error",
        error_type: "visa_record_not_found",
        message: `Visa petition ${p.visa_petition_number} not found for ${p.employee_id}`,
      },
    };
  }
  return { visa: visa! };
}

export const getVisaRecord = hrTool({
  name: "get_visa_record",
  kind: "read",
  description: "Look up the employee's visa sponsorship record.",
  args: { employee_id: employeeId(), visa_petition_number: visaPetition() },
  run(p, db) {
    const { visa, error } = visaOf(db, p);
    if (error) return error;
    return { status: "success", visa_record: clone(visa) };
  },
});

const NAME = /^[A-Za-z\-]{2,30}$/;

export const addVisaDependent = hrTool({
  name: "add_visa_dependent",
  kind: "write",
  description: "Add a dependent to the employee's visa petition.",
  args: {
    employee_id: employeeId(),
    visa_petition_number: visaPetition(),
    dependent_first_name: str({
      pattern: NAME,
      description: "Dependent first name, letters and hyphens only",
      examples: ["Priya", "Jean-Luc"],
    }),
    dependent_last_name: str({
      pattern: NAME,
      description: "Dependent last name, letters and hyphens only",
      examples: ["Sharma", "Dupont"],
    }),
    relationship: choice(RELATIONSHIPS),
    dependent_date_of_birth: date(),
    dependent_country_of_birth: countryCode(),
    uscis_receipt_number: uscisReceipt(),
  },
  run(p, db) {
    const { visa, error } = visaOf(db, p);
    if (error) return error;
    const amendment = caseIdFor("VISA", p.employee_id);
    setDefault(visa!, "dependents", []).push({
      first_name: p.dependent_first_name,
      last_name: p.dependent_last_name,
      relationship: p.relationship,
      date_of_birth: p.dependent_date_of_birth,
      country_of_birth: p.dependent_country_of_birth,
      uscis_receipt_number: p.uscis_receipt_number,
      amendment_id: amendment,
      status: "pending",
    });
    visa!.amendment_id = amendment;
    return {
      status: "success",
      employee_id: p.employee_id,
      visa_petition_number: p.visa_petition_number,
      dependent_name: `${p.dependent_first_name} ${p.dependent_last_name}`,
      relationship: p.relationship,
      dependent_date_of_birth: p.dependent_date_of_birth,
      dependent_country_of_birth: p.dependent_country_of_birth,
      uscis_receipt_number: p.uscis_receipt_number,
      amendment_id: amendment,
      message: `Dependent added to petition ${p.visa_petition_number}. Amendment ID: ${amendment}`,
    };
  },
});

export const notifyImmigrationCounsel = hrTool({
  name: "notify_immigration_counsel",
  kind: "write",
  description: "Notify immigration counsel of a visa petition change.",
  args: {
    employee_id: employeeId(),
    visa_petition_number: visaPetition(),
    notification_type: choice(IMMIGRATION_NOTIFICATIONS),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    if (!truthy(employee(db, p.employee_id))) return employeeNotFound(p.employee_id);
    notify(db, {
      recipient: "immigration_counsel",
      employee_id: p.employee_id,
      visa_petition_number: p.visa_petition_number,
      notification_type: p.notification_type,
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      visa_petition_number: p.visa_petition_number,
      notification_type: p.notification_type,
      message: `Immigration counsel notified: ${p.notification_type}`,
    };
  },
});

/** Monday-to-Friday dates from `start` to `end`, inclusive. */
function weekdays(start: string, end: string): string[] {
  const days: string[] = [];
  const last = parseDate(end);
  for (let t = parseDate(start); t <= last; t = addDays(t, 1)) {
    if (weekday(t) < 5) days.push(formatDate(t));
  }
  return days;
}

/** The days that count toward PTO: weekdays less holidays, or a shift worker's shifts. */
function workingDays(db: Rec, emp: Rec, eid: string, start: string, end: string): string[] {
  if (get(emp, "schedule_type", "standard") === "standard") {
    const holidays = new Set(get(db, "org_holidays", []) as string[]);
    return weekdays(start, end).filter((d) => !holidays.has(d));
  }
  const dates = new Set<string>();
  for (const s of Object.values(dict(db, "shifts"))) {
    if (s.employee_id !== eid) continue;
    const d = get(s, "date", "") as string;
    if (start <= d && d <= end) dates.add(d);
  }
  return [...dates].sort();
}

export const getPtoBalance = hrTool({
  name: "get_pto_balance",
  kind: "read",
  description: "Look up the employee's PTO and sick balances and how PTO days are counted.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const balances = emp!.pto_balances;
    if (!truthy(balances)) {
      return {
        status: "error",
        error_type: "pto_record_not_found",
        message: `No PTO balance record found for ${p.employee_id}`,
      };
    }
    const scheduleType = get(emp, "schedule_type", "standard");
    return {
      status: "success",
      employee_id: p.employee_id,
      schedule_type: scheduleType,
      pto_balances: clone(balances),
      message: `PTO balances retrieved. Schedule type: ${pyStr(scheduleType)}`,
    };
  },
});

const PTO_ARGS = {
  employee_id: employeeId(),
  pto_type: choice(PTO_TYPES),
  start_date: date(),
  end_date: date(),
};

const INVALID_RANGE = {
  status: "error",
  error_type: "invalid_date_range",
  message: "Start date must be on or before end date",
};

export const checkPtoEligibility = hrTool({
  name: "check_pto_eligibility",
  kind: "read",
  description: "Check a PTO request: balance, department blackout dates, overlapping requests.",
  args: PTO_ARGS,
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (p.start_date > p.end_date) return { ...INVALID_RANGE };
    const balance = get(get(emp, "pto_balances", {}), p.pto_type, 0.0) as number;
    const scheduleType = get(emp, "schedule_type", "standard");
    const days = workingDays(db, emp!, p.employee_id, p.start_date, p.end_date);
    const required = days.length;
    if (required > balance) {
      return {
        status: "error",
        error_type: "insufficient_pto_balance",
        message: `Insufficient ${p.pto_type} balance: ${pyFloat(required)} days required but only ${
          pyBalance(balance)
        } available`,
        pto_days_required: required,
        current_balance: balance,
      };
    }
    const dept = String(get(emp, "department_code", ""));
    const blackout = new Set(get(dict(db, "department_blackout_dates"), dept, []) as string[]);
    const blocked = [...new Set(days)].filter((d) => blackout.has(d)).sort();
    if (blocked.length) {
      return {
        status: "error",
        error_type: "blackout_date_conflict",
        message: `Requested dates overlap with department blackout dates: ${pyRepr(blocked)}`,
        conflicting_dates: blocked,
      };
    }
    for (const req of get(emp, "pto_requests", []) as Rec[]) {
      if (req.status !== "pending" && req.status !== "approved") continue;
      if (
        p.start_date <= String(get(req, "end_date", "")) &&
        p.end_date >= String(get(req, "start_date", ""))
      ) {
        return {
          status: "error",
          error_type: "pto_overlap",
          message: `Requested dates overlap with existing PTO request ${
            pyStr(req.start_date ?? null)
          } to ${pyStr(req.end_date ?? null)} (case ${pyStr(req.case_id ?? null)})`,
          overlapping_case_id: req.case_id ?? null,
        };
      }
    }
    const remaining = balance - required;
    return {
      status: "success",
      eligible: true,
      employee_id: p.employee_id,
      schedule_type: scheduleType,
      pto_type: p.pto_type,
      pto_days_required: required,
      working_days_in_range: days,
      current_balance: balance,
      remaining_after: remaining,
      message: `Eligible. ${pyFloat(required)} ${p.pto_type} day(s) required, ${
        pyFloat(remaining)
      } remaining after.`,
    };
  },
});

/**
 * A balance as Python prints it. JSON parsing keeps no float-ness, but the worlds
 * write balances as floats (`15.0`) and the default is `0.0`, so a float it is.
 */
function pyBalance(n: number): string {
  return pyFloat(n);
}

export const submitPtoRequest = hrTool({
  name: "submit_pto_request",
  kind: "write",
  description: "Submit a PTO request; the days are counted again and deducted from the balance.",
  args: PTO_ARGS,
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired("employee_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (p.start_date > p.end_date) return { ...INVALID_RANGE };
    const balances = get(emp, "pto_balances", {}) as Rec;
    const balance = get(balances, p.pto_type, 0.0) as number;
    const days = workingDays(db, emp!, p.employee_id, p.start_date, p.end_date);
    const deducted = days.length;
    if (deducted > balance) {
      return {
        status: "error",
        error_type: "insufficient_pto_balance",
        message: `Insufficient ${p.pto_type} balance: ${pyFloat(deducted)} days required but only ${
          pyBalance(balance)
        } available`,
      };
    }
    balances[p.pto_type] = balance - deducted;
    const cid = caseIdFor("PTO", p.employee_id);
    setDefault(emp!, "pto_requests", []).push({
      case_id: cid,
      pto_type: p.pto_type,
      start_date: p.start_date,
      end_date: p.end_date,
      pto_days_deducted: deducted,
      working_days: days,
      status: "pending",
    });
    return {
      status: "success",
      employee_id: p.employee_id,
      case_id: cid,
      pto_type: p.pto_type,
      start_date: p.start_date,
      end_date: p.end_date,
      pto_days_deducted: deducted,
      working_days: days,
      remaining_balance: balances[p.pto_type],
      message: `PTO request submitted. ${
        pyFloat(deducted)
      } ${p.pto_type} day(s) deducted. Case ID: ${cid}`,
    };
  },
});

export const transferToAgent = hrTool({
  name: "transfer_to_agent",
  kind: "system",
  effect: "transfer",
  description: "Transfer the caller to a live agent.",
  args: { employee_id: employeeId(), transfer_reason: str(), issue_summary: str() },
  run(p, _db, callIndex) {
    return {
      status: "success",
      transfer_id: `TRF-${p.employee_id}-${zfill(callIndex, 3)}`,
      employee_id: p.employee_id,
      transfer_reason: p.transfer_reason,
      issue_summary: p.issue_summary,
      estimated_wait: "2-3 minutes",
      message: "Transferring to live agent",
    };
  },
});
