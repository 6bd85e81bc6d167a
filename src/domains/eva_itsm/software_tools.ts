/**
 * eva_itsm's software flows: application access (with approval routing), license
 * requests (permanent or temporary) and renewals.
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy } from "../eva_common/eva_tool.ts";
import { choice, literalInts, optional, str } from "../eva_common/pydantic.ts";
import {
  addDays,
  addHours,
  daysBetween,
  formatDate,
  formatDateTime,
  parseDate,
} from "../eva_common/py_date.ts";
import { pyRepr, pyStr } from "../eva_airline/python_text.ts";
import {
  ACCESS_LEVELS,
  catalogName,
  employeeId,
  licenseAssignmentId,
  requestId,
} from "./params.ts";
import {
  authed,
  authRequired,
  currentDate,
  employee,
  employeeNotFound,
  findCatalogEntry,
  itsmTool,
  requestIdFor,
} from "./world.ts";

export const getApplicationDetails = itsmTool({
  name: "get_application_details",
  kind: "read",
  description: "Look up an application in the software catalog by its name.",
  args: { application_name: catalogName() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const apps = dict(dict(db, "software_catalog"), "applications");
    const [cid, app] = findCatalogEntry(apps, p.application_name);
    if (!cid) {
      return {
        status: "error",
        error_type: "not_found",
        message:
          `No application matching '${p.application_name}'. Please confirm the exact product name.`,
      };
    }
    const payload = clone(app!);
    payload.catalog_id = cid;
    return { status: "success", catalog_id: cid, application: payload };
  },
});

export const submitAccessRequest = itsmTool({
  name: "submit_access_request",
  kind: "write",
  description: "Request access to an application at an access level (needs OTP authentication).",
  args: {
    employee_id: employeeId(),
    catalog_id: str({
      pattern: /^APP-\d{4}$/,
      description: "APP-NNNN (obtained from get_application_details)",
      examples: ["APP-0042"],
    }),
    access_level: choice(ACCESS_LEVELS),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const app = at(dict(dict(db, "software_catalog"), "applications"), p.catalog_id);
    if (!truthy(app)) {
      return { status: "error", error_type: "not_found", message: `App ${p.catalog_id} not found` };
    }
    const levels = get(app, "available_access_levels", []) as unknown as unknown[];
    if (!levels.includes(p.access_level)) {
      return {
        status: "error",
        error_type: "invalid_access_level",
        message: `'${p.access_level}' not available. Options: ${
          pyRepr(app!.available_access_levels)
        }`,
      };
    }
    const approval = get(app, "requires_manager_approval", false);
    const record: Record<string, unknown> = {
      request_id: null,
      employee_id: p.employee_id,
      catalog_id: p.catalog_id,
      application_name: app!.name,
      access_level: p.access_level,
      status: truthy(approval) ? "pending_approval" : "approved",
      requires_manager_approval: approval,
      created_date: currentDate(db),
    };
    const rid = requestIdFor(record, "SW");
    record.request_id = rid;
    setDefault(db, "requests", {})[rid] = record;
    return {
      status: "success",
      request_id: rid,
      application_name: app!.name,
      access_level: p.access_level,
      requires_approval: approval,
      message: rid + (truthy(approval) ? " (pending approval)" : " (auto-approved)"),
    };
  },
});

export const routeApprovalWorkflow = itsmTool({
  name: "route_approval_workflow",
  kind: "write",
  description: "Route a request that needs approval to its approver (48-hour window).",
  args: {
    request_id: requestId(),
    employee_id: employeeId(),
    approver_employee_id: employeeId(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const req = at(dict(db, "requests"), p.request_id);
    if (!truthy(req)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Request ${p.request_id} not found`,
      };
    }
    const approver = employee(db, p.approver_employee_id);
    if (!truthy(approver)) return employeeNotFound(p.approver_employee_id);
    const deadline = formatDateTime(addHours(parseDate(currentDate(db)), 48));
    Object.assign(req!, {
      approval_routed_to: p.approver_employee_id,
      approval_sla_deadline: deadline,
    });
    const name = `${pyStr(approver!.first_name)} ${pyStr(approver!.last_name)}`;
    return {
      status: "success",
      request_id: p.request_id,
      approver_name: name,
      approval_deadline: deadline,
      message: `Routed to ${name}. 48h window.`,
    };
  },
});

export const getLicenseCatalogItem = itsmTool({
  name: "get_license_catalog_item",
  kind: "read",
  description: "Look up a license in the software catalog by its name.",
  args: { license_name: catalogName() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const licenses = dict(dict(db, "software_catalog"), "licenses");
    const [cid, lic] = findCatalogEntry(licenses, p.license_name);
    if (!cid) {
      return {
        status: "error",
        error_type: "not_found",
        message: `No license matching '${p.license_name}'. Please confirm the exact product name.`,
      };
    }
    const payload = clone(lic!);
    payload.catalog_id = cid;
    return { status: "success", catalog_id: cid, license: payload };
  },
});

function durationDays(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  let x = v;
  if (typeof x === "string") {
    const s = x.trim().toLowerCase();
    if (["", ".", "none", "null", "n/a", "na"].includes(s)) return null;
    const n = /^[-+]?\d+$/.test(s) ? Number(s) : NaN;
    if (Number.isNaN(n)) return x;
    x = n;
  }
  if (typeof x === "number" && x === 0) return null;
  return x;
}

export const submitLicenseRequest = itsmTool({
  name: "submit_license_request",
  kind: "write",
  description:
    "Request a license: permanent (omit duration_days) or temporary for 30, 60 or 90 days.",
  args: {
    employee_id: employeeId(),
    catalog_id: str({
      pattern: /^LIC-\d{4}$/,
      description: "LIC-NNNN (obtained from get_license_catalog_item)",
      examples: ["LIC-0018"],
    }),
    duration_days: optional(literalInts([30, 60, 90]), {
      before: durationDays,
      doc: {
        description:
          "Trial duration in days. Use 30, 60, or 90 for trial licenses. **Omit this field** (do not include the key) for permanent licenses — do not pass null, 'null', or empty string.",
      },
    }),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const record: Record<string, unknown> = {
      request_id: null,
      employee_id: p.employee_id,
      catalog_id: p.catalog_id,
      status: "submitted",
      created_date: currentDate(db),
    };
    const duration = p.duration_days ?? null;
    if (duration === null) {
      record.request_type = "license_request";
      const rid = requestIdFor(record, "SW");
      record.request_id = rid;
      setDefault(db, "requests", {})[rid] = record;
      return {
        status: "success",
        request_id: rid,
        catalog_id: p.catalog_id,
        license_type: "permanent",
        message: `License request: ${rid}`,
      };
    }
    const exp = formatDate(addDays(parseDate(currentDate(db)), duration));
    Object.assign(record, {
      request_type: "temporary_license",
      duration_days: duration,
      expiration_date: exp,
    });
    const rid = requestIdFor(record, "SW");
    record.request_id = rid;
    setDefault(db, "requests", {})[rid] = record;
    return {
      status: "success",
      request_id: rid,
      catalog_id: p.catalog_id,
      license_type: "temporary",
      duration_days: duration,
      expiration_date: exp,
      message: `Temp license: ${rid}. Expires ${exp}.`,
    };
  },
});

export const getEmployeeLicenses = itsmTool({
  name: "get_employee_licenses",
  kind: "read",
  description: "List the licenses assigned to an employee.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    return {
      status: "success",
      employee_id: p.employee_id,
      licenses: clone(get(emp, "software_licenses", [])),
    };
  },
});

export const submitLicenseRenewal = itsmTool({
  name: "submit_license_renewal",
  kind: "write",
  description:
    "Renew a license for a year: within 30 days before its expiry or up to 14 days after.",
  args: { employee_id: employeeId(), license_assignment_id: licenseAssignmentId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const licenses = (get(emp, "software_licenses", []) ?? []) as unknown as Record<
      string,
      unknown
    >[];
    const lic = licenses.find((l) => l.license_assignment_id === p.license_assignment_id);
    if (!lic) {
      return {
        status: "error",
        error_type: "not_found",
        message: `License ${p.license_assignment_id} not found`,
      };
    }
    const cur = currentDate(db);
    const exp = get(lic, "expiration_date", "") as unknown as string;
    if (truthy(cur) && truthy(exp)) {
      const days = daysBetween(parseDate(exp), parseDate(cur));
      if (days > 30) {
        return {
          status: "error",
          error_type: "not_in_renewal_window",
          message:
            `License expires in ${days} days. Renewal is only available within 30 days of expiration. Please call back closer to the expiration date.`,
          expiration_date: exp,
        };
      }
      if (days < -14) {
        return {
          status: "error",
          error_type: "not_in_renewal_window",
          message: `License expired ${
            Math.abs(days)
          } days ago. Renewal is only available up to 14 days past expiration. Submit a new license request instead.`,
          expiration_date: exp,
        };
      }
    }
    const base = Math.max(parseDate(truthy(exp) ? exp : cur), parseDate(cur));
    const newExp = formatDate(addDays(base, 365));
    Object.assign(lic, { expiration_date: newExp, status: "active" });
    const record: Record<string, unknown> = {
      request_id: null,
      employee_id: p.employee_id,
      license_assignment_id: p.license_assignment_id,
      request_type: "license_renewal",
      new_expiration_date: newExp,
      status: "submitted",
      created_date: currentDate(db),
    };
    const rid = requestIdFor(record, "SW");
    record.request_id = rid;
    setDefault(db, "requests", {})[rid] = record;
    return {
      status: "success",
      request_id: rid,
      new_expiration_date: newExp,
      message: `Renewed. Expires ${newExp}. ID: ${rid}`,
    };
  },
});
