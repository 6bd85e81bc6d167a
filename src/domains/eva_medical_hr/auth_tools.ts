/**
 * eva_medical_hr authentication (employee, credentialed provider, OTP), the shared
 * provider and employee lookups, and appointment availability.
 *
 * @module
 */
import { choice } from "../eva_common/pydantic.ts";
import { dict, setDefault, truthy } from "../eva_common/eva_tool.ts";
import {
  APPOINTMENT_TYPES,
  date,
  departmentCode,
  employeeId,
  facilityCode,
  npi,
  otp,
  pin,
} from "./params.ts";
import {
  authed,
  authRequired,
  employee,
  employeeNotFound,
  hrTool,
  provider,
  providerNotFound,
} from "./world.ts";
import { pyStr } from "../eva_airline/python_text.ts";

export const verifyEmployeeAuth = hrTool({
  name: "verify_employee_auth",
  kind: "write",
  description: "Authenticate an employee with their employee ID and date of birth.",
  args: { employee_id: employeeId(), date_of_birth: date() },
  run(p, db) {
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.date_of_birth !== p.date_of_birth) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "Date of birth does not match records for this employee ID",
      };
    }
    const session = setDefault(db, "session", {});
    session.employee_auth = true;
    session.authenticated_employee_id = p.employee_id;
    return {
      status: "success",
      authenticated: true,
      employee_id: p.employee_id,
      first_name: emp!.first_name ?? null,
      last_name: emp!.last_name ?? null,
      message: `Employee ${p.employee_id} authenticated successfully`,
    };
  },
});

export const verifyProviderAuth = hrTool({
  name: "verify_provider_auth",
  kind: "write",
  description: "Authenticate a credentialed provider with NPI, facility code and PIN.",
  args: { npi: npi(), facility_code: facilityCode(), pin: pin() },
  run(p, db) {
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    if (prov!.facility_code !== p.facility_code) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "Facility code does not match records for this NPI",
      };
    }
    if (prov!.pin !== p.pin) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "PIN does not match records for this NPI",
      };
    }
    const session = setDefault(db, "session", {});
    session.provider_auth = true;
    session.authenticated_npi = p.npi;
    session.authenticated_employee_id = prov!.employee_id ?? null;
    return {
      status: "success",
      authenticated: true,
      npi: p.npi,
      first_name: prov!.first_name ?? null,
      last_name: prov!.last_name ?? null,
      employee_id: prov!.employee_id ?? null,
      message: `Provider NPI ${p.npi} authenticated successfully`,
    };
  },
});

export const initiateOtpAuth = hrTool({
  name: "initiate_otp_auth",
  kind: "write",
  description: "Text a one-time passcode to the employee's phone on file.",
  args: { employee_id: employeeId() },
  run(p, db) {
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const session = setDefault(db, "session", {});
    session.otp_employee_id = p.employee_id;
    session.otp_issued = true;
    return {
      status: "success",
      phone_last_four: emp!.phone_last_four ?? null,
      message: `OTP sent to number ending in ${
        pyStr(emp!.phone_last_four ?? null)
      }. Ask the caller to read the code.`,
    };
  },
});

export const verifyOtpAuth = hrTool({
  name: "verify_otp_auth",
  kind: "write",
  description: "Verify the six-digit passcode the caller read back.",
  args: { employee_id: employeeId(), otp_code: otp() },
  run(p, db) {
    if (!truthy(dict(db, "session").otp_issued)) {
      return {
        status: "error",
        error_type: "otp_not_initiated",
        message: "OTP has not been initiated. Call initiate_otp_auth first.",
      };
    }
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.otp_code !== p.otp_code) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "OTP code does not match. Ask the caller to read the code again.",
      };
    }
    db.session.otp_auth = true;
    db.session.authenticated_employee_id = p.employee_id;
    return {
      status: "success",
      authenticated: true,
      employee_id: p.employee_id,
      first_name: emp!.first_name ?? null,
      message: `OTP verified. Employee ${p.employee_id} authenticated successfully.`,
    };
  },
});

function pick(record: Record<string, unknown>, fields: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const k of fields) if (Object.hasOwn(record, k)) out[k] = record[k];
  return JSON.parse(JSON.stringify(out));
}

export const getProviderProfile = hrTool({
  name: "get_provider_profile",
  kind: "read",
  description: "Look up a provider's identity, role and department.",
  args: { npi: npi() },
  run(p, db) {
    if (!authed(db, "provider_auth") && !authed(db, "otp_auth")) {
      return authRequired("provider_auth or otp_auth");
    }
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    return {
      status: "success",
      provider: pick(prov!, [
        "npi",
        "employee_id",
        "first_name",
        "last_name",
        "facility_code",
        "role_code",
        "department_code",
        "hire_date",
      ]),
    };
  },
});

export const getEmployeeRecord = hrTool({
  name: "get_employee_record",
  kind: "read",
  description: "Look up an employee's identity, department, role and status.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth") && !authed(db, "otp_auth")) {
      return authRequired("employee_auth or otp_auth");
    }
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    return {
      status: "success",
      employee: pick(emp!, [
        "employee_id",
        "first_name",
        "last_name",
        "department_code",
        "role_code",
        "unit_code",
        "hire_date",
        "employment_status",
      ]),
    };
  },
});

export const checkAppointmentAvailability = hrTool({
  name: "check_appointment_availability",
  kind: "read",
  description: "List the free time slots of an appointment type in a department on a date.",
  args: {
    department_code: departmentCode(),
    appointment_type: choice(APPOINTMENT_TYPES),
    preferred_date: date(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth") && !authed(db, "otp_auth")) {
      return authRequired("employee_auth or otp_auth");
    }
    const byDept = dict(
      dict(dict(db, "appointment_availability"), p.appointment_type),
      p.department_code,
    );
    const slots =
      (Object.hasOwn(byDept, p.preferred_date) ? byDept[p.preferred_date] : []) as string[];
    if (!truthy(slots)) {
      const nearby = [];
      for (const day of Object.keys(byDept).sort()) {
        const daySlots = byDept[day] as string[];
        if (truthy(daySlots) && day >= p.preferred_date) {
          nearby.push({ date: day, available_slots: [...daySlots] });
          if (nearby.length >= 3) break;
        }
      }
      return {
        status: "success",
        available_slots: [],
        date: p.preferred_date,
        alternative_dates: nearby,
        message:
          `No availability on ${p.preferred_date} for ${p.appointment_type} in ${p.department_code}`,
      };
    }
    return {
      status: "success",
      available_slots: [...slots],
      date: p.preferred_date,
      message: `${slots.length} slot(s) available on ${p.preferred_date}`,
    };
  },
});
