/**
 * eva_itsm authentication (employee, OTP, manager) and the shared lookups of an
 * employee's record and assets.
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy } from "../eva_common/eva_tool.ts";
import { pyStr } from "../eva_airline/python_text.ts";
import { assetTag, employeeId, managerAuthCode, otp, phoneLastFour } from "./params.ts";
import { authed, authRequired, employee, employeeNotFound, itsmTool } from "./world.ts";

export const verifyEmployeeAuth = itsmTool({
  name: "verify_employee_auth",
  kind: "write",
  description:
    "Authenticate the caller with their employee ID and the last four digits of their phone number.",
  args: { employee_id: employeeId(), phone_last_four: phoneLastFour() },
  run(p, db) {
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.phone_last_four !== p.phone_last_four) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "Phone number does not match",
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
      message: `Employee ${p.employee_id} authenticated`,
    };
  },
});

export const initiateOtpAuth = itsmTool({
  name: "initiate_otp_auth",
  kind: "write",
  description: "Send a one-time passcode to the employee's phone on file.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth") && !authed(db, "manager_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const session = setDefault(db, "session", {});
    session.otp_employee_id = p.employee_id;
    session.otp_issued = true;
    return {
      status: "success",
      phone_last_four: emp!.phone_last_four ?? null,
      message: `OTP sent to ***${pyStr(emp!.phone_last_four ?? null)}`,
    };
  },
});

export const verifyOtpAuth = itsmTool({
  name: "verify_otp_auth",
  kind: "write",
  description: "Verify the one-time passcode the caller read back.",
  args: { employee_id: employeeId(), otp_code: otp() },
  run(p, db) {
    if (!truthy(dict(db, "session").otp_issued)) {
      return {
        status: "error",
        error_type: "otp_not_initiated",
        message: "Call initiate_otp_auth first",
      };
    }
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.otp_code !== p.otp_code) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "OTP does not match",
      };
    }
    db.session.otp_auth = true;
    delete db.session.otp_employee_id;
    delete db.session.otp_issued;
    return {
      status: "success",
      authenticated: true,
      employee_id: p.employee_id,
      message: "OTP verified",
    };
  },
});

export const verifyManagerAuth = itsmTool({
  name: "verify_manager_auth",
  kind: "write",
  description:
    "Authenticate a manager: employee ID, phone last four and manager authorization code.",
  args: {
    employee_id: employeeId(),
    phone_last_four: phoneLastFour(),
    manager_auth_code: managerAuthCode(),
  },
  run(p, db) {
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    if (emp!.phone_last_four !== p.phone_last_four) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "Phone number does not match",
      };
    }
    if (emp!.manager_auth_code !== p.manager_auth_code) {
      return {
        status: "error",
        error_type: "authentication_failed",
        message: "Manager auth code does not match",
      };
    }
    if (!truthy(emp!.is_manager)) {
      return {
        status: "error",
        error_type: "not_authorized",
        message: `${p.employee_id} is not a manager`,
      };
    }
    const session = setDefault(db, "session", {});
    session.employee_auth = true;
    session.authenticated_employee_id = p.employee_id;
    session.manager_auth = true;
    session.manager_employee_id = p.employee_id;
    return {
      status: "success",
      confirmed: true,
      employee_id: p.employee_id,
      first_name: emp!.first_name ?? null,
      last_name: emp!.last_name ?? null,
      department_code: emp!.department_code ?? null,
      direct_reports: get(emp, "direct_reports", []),
      message: "Standard + manager auth confirmed",
    };
  },
});

const RECORD_FIELDS = [
  "employee_id",
  "first_name",
  "last_name",
  "department_code",
  "role_code",
  "hire_date",
  "employment_status",
  "building_code",
  "floor_code",
  "manager_employee_id",
];

export const getEmployeeRecord = itsmTool({
  name: "get_employee_record",
  kind: "read",
  description: "Look up an employee's record.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const out: Record<string, unknown> = {};
    for (const k of RECORD_FIELDS) if (Object.hasOwn(emp!, k)) out[k] = emp![k];
    return { status: "success", employee: clone(out) };
  },
});

export const getAssetRecord = itsmTool({
  name: "get_asset_record",
  kind: "read",
  description: "Look up an asset by its tag.",
  args: { asset_tag: assetTag() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const asset = at(dict(db, "assets"), p.asset_tag);
    if (!truthy(asset)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Asset ${p.asset_tag} not found`,
      };
    }
    return { status: "success", asset: clone(asset) };
  },
});

export const getEmployeeAssets = itsmTool({
  name: "get_employee_assets",
  kind: "read",
  description: "List the assets assigned to an employee.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const assets = Object.values(dict(db, "assets"))
      .filter((a) => a.assigned_employee_id === p.employee_id).map(clone);
    return {
      status: "success",
      employee_id: p.employee_id,
      assets,
      message: `${assets.length} asset(s)`,
    };
  },
});
