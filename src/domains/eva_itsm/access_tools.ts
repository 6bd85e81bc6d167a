/**
 * eva_itsm's account and access flows (new-hire provisioning, group membership,
 * role changes, off-boarding), security incidents (lost devices, MFA resets),
 * request status and escalation, and the hand-over to a live agent.
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy, zfill } from "../eva_common/eva_tool.ts";
import { choice, list, str } from "../eva_common/pydantic.ts";
import { addDays, addHours, formatDate, formatDateTime, parseDate } from "../eva_common/py_date.ts";
import { pyStr } from "../eva_airline/python_text.ts";
import {
  assetTag,
  caseId,
  date,
  departmentCode,
  employeeId,
  GROUP_CODE,
  groupCode,
  MEMBERSHIP_ACTIONS,
  permissionTemplateId,
  phoneLastFour,
  RECOVERY_METHODS,
  REMOVAL_SCOPES,
  requestId,
  roleCode,
  SECURITY_INCIDENT_TYPES,
  securityCaseId,
  TRANSFER_REASONS,
} from "./params.ts";
import {
  authed,
  authRequired,
  caseIdFor,
  currentDate,
  employee,
  employeeNotFound,
  groupEligible,
  itsmTool,
  requestIdFor,
  securityCaseIdFor,
} from "./world.ts";

type Rec = Record<string, unknown>;

export const lookupNewHire = itsmTool({
  name: "lookup_new_hire",
  kind: "read",
  description: "Look up a manager's new hire who has not started yet.",
  args: { new_hire_employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    const emp = employee(db, p.new_hire_employee_id);
    if (!truthy(emp)) return employeeNotFound(p.new_hire_employee_id);
    if (emp!.employment_status !== "pending_start") {
      return {
        status: "error",
        error_type: "not_new_hire",
        message: `Status '${pyStr(emp!.employment_status)}', not 'pending_start'`,
      };
    }
    return {
      status: "success",
      employee: {
        employee_id: p.new_hire_employee_id,
        first_name: emp!.first_name,
        last_name: emp!.last_name,
        department_code: emp!.department_code,
        role_code: emp!.role_code,
        start_date: emp!.start_date ?? null,
      },
    };
  },
});

export const checkExistingAccounts = itsmTool({
  name: "check_existing_accounts",
  kind: "read",
  description: "Check that a new hire has no active system accounts yet.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const active = (get(emp, "system_accounts", []) as unknown as Rec[])
      .filter((a) => a.status === "active");
    if (active.length) {
      return {
        status: "error",
        error_type: "accounts_already_exist",
        message: `${active.length} active account(s)`,
      };
    }
    return {
      status: "success",
      employee_id: p.employee_id,
      existing_accounts: [],
      message: "Ready to provision",
    };
  },
});

export const provisionNewAccount = itsmTool({
  name: "provision_new_account",
  kind: "write",
  description: "Provision a new hire's accounts and access groups (needs OTP authentication).",
  args: {
    manager_employee_id: employeeId(),
    new_hire_employee_id: employeeId(),
    department_code: departmentCode(),
    role_code: roleCode(),
    start_date: date(),
    access_groups: list(str({ pattern: GROUP_CODE })),
  },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const mgr = employee(db, p.manager_employee_id);
    if (!truthy(mgr)) return employeeNotFound(p.manager_employee_id);
    if (
      !(get(mgr, "direct_reports", []) as unknown as unknown[]).includes(p.new_hire_employee_id)
    ) {
      return { status: "error", error_type: "not_authorized", message: "Not in direct reports" };
    }
    const nh = employee(db, p.new_hire_employee_id);
    if (!truthy(nh)) return employeeNotFound(p.new_hire_employee_id);
    for (const gc of p.access_groups) {
      const grp = at(dict(db, "access_groups"), gc);
      if (truthy(grp) && !groupEligible(grp!, nh!)) {
        return {
          status: "error",
          error_type: "group_not_eligible",
          group_code: gc,
          message: `New hire ${p.new_hire_employee_id} (department ${
            pyStr(nh!.department_code ?? null)
          }, role ${
            pyStr(nh!.role_code ?? null)
          }) is not eligible for ${gc}. Use a permission template that matches the role.`,
        };
      }
    }
    const base = `${String(nh!.first_name).toLowerCase()}.${String(nh!.last_name).toLowerCase()}`;
    const existing = new Set(
      Object.values(dict(db, "employees")).map((e) => e.email).filter((e) => truthy(e)),
    );
    let email = `${base}@company.com`;
    for (let suffix = 2; existing.has(email); suffix++) email = `${base}${suffix}@company.com`;
    nh!.email = email;
    const entry: Rec = {
      case_id: null,
      status: "active",
      provisioned_date: currentDate(db),
      access_groups: [...p.access_groups],
    };
    const cid = caseIdFor(entry, "ACCT");
    entry.case_id = cid;
    nh!.system_accounts = [entry];
    nh!.employment_status = "active";
    return {
      status: "success",
      case_id: cid,
      new_hire_employee_id: p.new_hire_employee_id,
      email,
      access_groups: [...p.access_groups],
      message: `Provisioned. Case: ${cid}. Email: ${email}`,
    };
  },
});

export const getGroupMemberships = itsmTool({
  name: "get_group_memberships",
  kind: "read",
  description: "List an employee's access-group memberships (needs OTP authentication).",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    return {
      status: "success",
      employee_id: p.employee_id,
      memberships: clone(get(emp, "group_memberships", [])),
    };
  },
});

export const getGroupDetails = itsmTool({
  name: "get_group_details",
  kind: "read",
  description: "Look up an access group (eligibility, approval).",
  args: { group_code: groupCode() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const group = at(dict(db, "access_groups"), p.group_code);
    if (!truthy(group)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Group ${p.group_code} not found`,
      };
    }
    return { status: "success", group: clone(group) };
  },
});

export const submitGroupMembershipChange = itsmTool({
  name: "submit_group_membership_change",
  kind: "write",
  description: "Add the employee to an access group or remove them from one.",
  args: { employee_id: employeeId(), group_code: groupCode(), action: choice(MEMBERSHIP_ACTIONS) },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const group = at(dict(db, "access_groups"), p.group_code);
    if (!truthy(group)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Group ${p.group_code} not found`,
      };
    }
    const memberships = get(emp, "group_memberships", []) as unknown as Rec[];
    const codes = memberships.map((m) => m.group_code);
    const today = currentDate(db);
    if (p.action === "remove") {
      if (!codes.includes(p.group_code)) {
        return { status: "error", error_type: "not_member", message: `Not in ${p.group_code}` };
      }
      emp!.group_memberships = memberships.filter((m) => m.group_code !== p.group_code);
      const cid = caseIdFor({
        employee_id: p.employee_id,
        group_code: p.group_code,
        action: "remove",
        created_date: today,
      }, "ACCT");
      return {
        status: "success",
        case_id: cid,
        action: "remove",
        group_code: p.group_code,
        message: `Removed. Case: ${cid}`,
      };
    }
    if (codes.includes(p.group_code)) {
      return {
        status: "error",
        error_type: "already_member",
        message: `Already in ${p.group_code}`,
      };
    }
    if (!groupEligible(group!, emp!)) {
      const depts = truthy(group!.eligible_departments)
        ? pyStr(group!.eligible_departments)
        : "any";
      const roles = truthy(group!.eligible_roles) ? pyStr(group!.eligible_roles) : "any";
      return {
        status: "error",
        error_type: "group_not_eligible",
        message: `Employee ${p.employee_id} (department ${
          pyStr(emp!.department_code ?? null)
        }, role ${
          pyStr(emp!.role_code ?? null)
        }) is not eligible for ${p.group_code}. Eligible departments: ${depts}; eligible roles: ${roles}.`,
      };
    }
    if (truthy(get(group, "requires_approval", false))) {
      const membership: Rec = {
        group_code: p.group_code,
        group_name: group!.name,
        status: "pending_approval",
        case_id: null,
        request_id: null,
        requested_date: today,
      };
      const cid = caseIdFor(membership, "ACCT");
      const req: Rec = {
        request_id: null,
        case_id: cid,
        employee_id: p.employee_id,
        group_code: p.group_code,
        action: "add",
        status: "pending_approval",
        requires_manager_approval: true,
        created_date: today,
      };
      const rid = requestIdFor(req, "ACCT");
      membership.case_id = cid;
      membership.request_id = rid;
      req.request_id = rid;
      setDefault(emp!, "group_memberships", []).push(membership);
      setDefault(db, "requests", {})[rid] = req;
      return {
        status: "success",
        case_id: cid,
        request_id: rid,
        action: "add",
        group_code: p.group_code,
        requires_approval: true,
        message: `Pending approval. Case: ${cid}. Request: ${rid}`,
      };
    }
    memberships.push({
      group_code: p.group_code,
      group_name: group!.name,
      status: "active",
      added_date: today,
    });
    const cid = caseIdFor({
      employee_id: p.employee_id,
      group_code: p.group_code,
      action: "add",
      auto_approved: true,
      created_date: today,
    }, "ACCT");
    return {
      status: "success",
      case_id: cid,
      action: "add",
      group_code: p.group_code,
      requires_approval: false,
      message: `Added. Case: ${cid}`,
    };
  },
});

export const checkRoleChangeAuthorized = itsmTool({
  name: "check_role_change_authorized",
  kind: "read",
  description: "Check that HR approved the employee's change to a new role.",
  args: { employee_id: employeeId(), new_role_code: roleCode() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const pr = emp!.pending_role_approval;
    if (!truthy(pr) || !truthy(pr.approved_by_hr)) {
      return {
        status: "error",
        error_type: "not_authorized",
        message:
          "HR has not approved a role change for this employee. Ask the caller to contact HR first.",
      };
    }
    if (pr.new_role_code !== p.new_role_code) {
      return {
        status: "error",
        error_type: "role_mismatch",
        message: `HR-approved role is '${
          pyStr(pr.new_role_code ?? null)
        }', not '${p.new_role_code}'`,
      };
    }
    return {
      status: "success",
      employee_id: p.employee_id,
      new_role_code: p.new_role_code,
      hr_case_id: pr.hr_case_id ?? null,
      effective_date: pr.effective_date ?? null,
      message: "Role change authorized by HR",
    };
  },
});

export const getPermissionTemplates = itsmTool({
  name: "get_permission_templates",
  kind: "read",
  description: "List the permission templates of a role.",
  args: { role_code: roleCode() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const templates = Object.fromEntries(
      Object.entries(dict(db, "permission_templates"))
        .filter(([, v]) => v.role_code === p.role_code)
        .map(([t, v]) => [t, clone(v)]),
    );
    if (!Object.keys(templates).length) {
      return {
        status: "error",
        error_type: "not_found",
        message: `No templates for ${p.role_code}`,
      };
    }
    return { status: "success", role_code: p.role_code, templates };
  },
});

export const submitPermissionChange = itsmTool({
  name: "submit_permission_change",
  kind: "write",
  description: "Submit the permission change of an HR-approved role change.",
  args: {
    employee_id: employeeId(),
    new_role_code: roleCode(),
    permission_template_id: permissionTemplateId(),
    effective_date: date(),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    if (parseDate(p.effective_date) < parseDate(currentDate(db))) {
      return {
        status: "error",
        error_type: "invalid_effective_date",
        message: `effective_date ${p.effective_date} is in the past`,
      };
    }
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const pr = emp!.pending_role_approval;
    if (truthy(pr) && truthy(pr.effective_date) && p.effective_date !== pr.effective_date) {
      return {
        status: "error",
        error_type: "effective_date_mismatch",
        message:
          `effective_date ${p.effective_date} does not match the HR-approved effective date ${
            pyStr(pr.effective_date)
          }`,
      };
    }
    const tmpl = at(dict(db, "permission_templates"), p.permission_template_id);
    if (!truthy(tmpl)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Template ${p.permission_template_id} not found`,
      };
    }
    if (tmpl!.role_code !== p.new_role_code) {
      return {
        status: "error",
        error_type: "template_role_mismatch",
        message: `Template for '${pyStr(tmpl!.role_code)}', not '${p.new_role_code}'`,
      };
    }
    const change: Rec = {
      case_id: null,
      new_role_code: p.new_role_code,
      permission_template_id: p.permission_template_id,
      effective_date: p.effective_date,
      status: "pending",
    };
    const cid = caseIdFor(change, "ACCT");
    change.case_id = cid;
    emp!.pending_role_change = change;
    return {
      status: "success",
      case_id: cid,
      employee_id: p.employee_id,
      effective_date: p.effective_date,
      message: `Permission change submitted. Case: ${cid}`,
    };
  },
});

export const scheduleAccessReview = itsmTool({
  name: "schedule_access_review",
  kind: "write",
  description: "Schedule the access review 90 days after a role change takes effect.",
  args: { case_id: caseId(), employee_id: employeeId(), review_date: date() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const prc = emp!.pending_role_change;
    if (!truthy(prc)) {
      return {
        status: "error",
        error_type: "no_pending_role_change",
        message: "No pending role change to schedule a review for",
      };
    }
    if (truthy(prc.effective_date)) {
      const expected = addDays(parseDate(prc.effective_date), 90);
      const actual = parseDate(p.review_date);
      if (Math.abs(Math.round((actual - expected) / 86_400_000)) > 3) {
        return {
          status: "error",
          error_type: "invalid_review_date",
          message: `review_date must be within 3 days of effective_date + 90 (expected near ${
            formatDate(expected)
          })`,
        };
      }
    }
    const rvw = `ARVW-${p.case_id.slice(-6)}`;
    Object.assign(prc, { access_review_id: rvw, review_date: p.review_date });
    return {
      status: "success",
      review_id: rvw,
      review_date: p.review_date,
      message: `90-day review on ${p.review_date}. ID: ${rvw}`,
    };
  },
});

export const getOffboardingRecord = itsmTool({
  name: "get_offboarding_record",
  kind: "read",
  description: "Look up a departing employee's off-boarding record.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const ob = emp!.offboarding_record;
    if (!truthy(ob)) {
      return {
        status: "error",
        error_type: "no_offboarding_record",
        message: "No off-boarding record. HR must initiate.",
      };
    }
    return { status: "success", employee_id: p.employee_id, offboarding: clone(ob) };
  },
});

export const submitAccessRemoval = itsmTool({
  name: "submit_access_removal",
  kind: "write",
  description: "Remove a departing direct report's access, fully or staged.",
  args: {
    manager_employee_id: employeeId(),
    departing_employee_id: employeeId(),
    last_working_day: date(),
    removal_scope: choice(REMOVAL_SCOPES),
  },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    if (parseDate(p.last_working_day) < parseDate(currentDate(db))) {
      return {
        status: "error",
        error_type: "invalid_last_working_day",
        message: `last_working_day ${p.last_working_day} is in the past`,
      };
    }
    const mgr = employee(db, p.manager_employee_id);
    if (!truthy(mgr)) return employeeNotFound(p.manager_employee_id);
    if (
      !(get(mgr, "direct_reports", []) as unknown as unknown[]).includes(p.departing_employee_id)
    ) {
      return { status: "error", error_type: "not_authorized", message: "Not in direct reports" };
    }
    const dep = employee(db, p.departing_employee_id);
    if (!truthy(dep)) return employeeNotFound(p.departing_employee_id);
    const ob = dep!.offboarding_record;
    if (!truthy(ob)) {
      return {
        status: "error",
        error_type: "no_offboarding_record",
        message: "No off-boarding record",
      };
    }
    Object.assign(dep!, {
      employment_status: "terminated",
      system_accounts: [],
      group_memberships: [],
    });
    if (p.removal_scope === "staged") {
      dep!.email_preserved_until = formatDate(addDays(parseDate(p.last_working_day), 30));
    }
    ob.access_removed = true;
    ob.removal_scope = p.removal_scope;
    ob.removal_case_id = null;
    const cid = caseIdFor(clone(ob), "ACCT");
    ob.removal_case_id = cid;
    return {
      status: "success",
      case_id: cid,
      departing_employee_id: p.departing_employee_id,
      removal_scope: p.removal_scope,
      message: `Access removed. Case: ${cid}`,
    };
  },
});

export const initiateAssetRecovery = itsmTool({
  name: "initiate_asset_recovery",
  kind: "write",
  description: "Start recovering a departing employee's devices (shipping label or drop-off).",
  args: {
    departing_employee_id: employeeId(),
    case_id: caseId(),
    recovery_method: choice(RECOVERY_METHODS),
  },
  run(p, db) {
    if (!authed(db, "manager_auth")) return authRequired("manager_auth");
    const assets = Object.values(dict(db, "assets"))
      .filter((a) => a.assigned_employee_id === p.departing_employee_id)
      .map((a) => ({ asset_tag: a.asset_tag, asset_type: a.asset_type, model: a.model }));
    const recv = `RECV-${p.case_id.slice(-6)}`;
    setDefault(db, "asset_recoveries", {})[recv] = {
      recovery_id: recv,
      case_id: p.case_id,
      departing_employee_id: p.departing_employee_id,
      recovery_method: p.recovery_method,
      assets_to_recover: assets.map((a) => a.asset_tag),
      created_date: currentDate(db),
    };
    return {
      status: "success",
      recovery_id: recv,
      recovery_method: p.recovery_method,
      assets_to_recover: assets,
      message: `Recovery ${recv}: ${assets.length} device(s) via ${p.recovery_method}`,
    };
  },
});

export const reportSecurityIncident = itsmTool({
  name: "report_security_incident",
  kind: "write",
  description: "Open a security case for a lost, stolen or compromised device.",
  args: {
    employee_id: employeeId(),
    asset_tag: assetTag(),
    incident_type: choice(SECURITY_INCIDENT_TYPES),
  },
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
    if (asset!.assigned_employee_id !== p.employee_id) {
      return {
        status: "error",
        error_type: "not_assigned_to_caller",
        message: `Asset ${p.asset_tag} is not assigned to ${p.employee_id}`,
      };
    }
    const record: Rec = {
      security_case_id: null,
      employee_id: p.employee_id,
      asset_tag: p.asset_tag,
      incident_type: p.incident_type,
      status: "open",
      opened_date: currentDate(db),
    };
    const sec = securityCaseIdFor(record);
    record.security_case_id = sec;
    setDefault(db, "security_cases", {})[sec] = record;
    if (p.incident_type === "lost" || p.incident_type === "stolen") {
      asset!.lifecycle_status = "lost_or_stolen";
    }
    return {
      status: "success",
      security_case_id: sec,
      asset_tag: p.asset_tag,
      incident_type: p.incident_type,
      message: `Security case ${sec} opened`,
    };
  },
});

export const initiateRemoteWipe = itsmTool({
  name: "initiate_remote_wipe",
  kind: "write",
  description: "Wipe a lost or stolen device remotely, on its security case.",
  args: { asset_tag: assetTag(), security_case_id: securityCaseId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const c = at(dict(db, "security_cases"), p.security_case_id);
    if (!truthy(c)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Security case ${p.security_case_id} not found`,
      };
    }
    const asset = at(dict(db, "assets"), p.asset_tag);
    if (!truthy(asset)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Asset ${p.asset_tag} not found`,
      };
    }
    if (c!.asset_tag !== p.asset_tag) {
      return {
        status: "error",
        error_type: "case_asset_mismatch",
        message: "asset_tag does not match the security case",
      };
    }
    const wipe = `WIPE-${p.asset_tag.slice(-6)}`;
    asset!.remote_wipe = { wipe_id: wipe, status: "dispatched", dispatched_date: currentDate(db) };
    asset!.status = "wiped";
    c!.remote_wipe_id = wipe;
    return {
      status: "success",
      wipe_id: wipe,
      asset_tag: p.asset_tag,
      message: `Remote wipe dispatched: ${wipe}`,
    };
  },
});

export const submitMfaReset = itsmTool({
  name: "submit_mfa_reset",
  kind: "write",
  description:
    "Request an MFA reset or phone-of-record change: always refused over the phone, with a security case opened.",
  args: { employee_id: employeeId(), new_phone_last_four: phoneLastFour() },
  // The refusal is an error result, yet the security case it opens stays.
  keepsWritesOnError: true,
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const record: Rec = {
      security_case_id: null,
      employee_id: p.employee_id,
      incident_type: "mfa_reset_request",
      requested_new_phone_last_four: p.new_phone_last_four,
      status: "requires_in_person",
      opened_date: currentDate(db),
    };
    const sec = securityCaseIdFor(record);
    record.security_case_id = sec;
    setDefault(db, "security_cases", {})[sec] = record;
    return {
      status: "error",
      error_type: "in_person_required",
      security_case_id: sec,
      message:
        "Phone-of-record changes cannot be made over the phone. Please visit the IT security office in person with a government-issued ID. A security case has been opened to track this request.",
    };
  },
});

/** Whether today is past a request's approval deadline (`YYYY-MM-DD HH:MM`). */
function breached(db: Rec, deadline: string): boolean {
  return parseDate(currentDate(db)) > parseDate(deadline.split(" ")[0]);
}

export const getRequestStatus = itsmTool({
  name: "get_request_status",
  kind: "read",
  description: "Look up a request's status and whether its approval SLA is breached.",
  args: { request_id: requestId() },
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
    const deadline = req!.approval_sla_deadline ?? null;
    let slaBreached = false;
    if (truthy(deadline)) {
      try {
        slaBreached = breached(db, deadline);
      } catch {
        slaBreached = false;
      }
    }
    return {
      status: "success",
      request_id: p.request_id,
      request_status: req!.status ?? null,
      approval_routed_to: req!.approval_routed_to ?? null,
      approval_sla_deadline: deadline,
      sla_breached: slaBreached,
      created_date: req!.created_date ?? null,
      message: `Request ${p.request_id} is ${pyStr(req!.status ?? null)}` +
        (slaBreached ? " (SLA breached)" : ""),
    };
  },
});

export const escalateApproval = itsmTool({
  name: "escalate_approval",
  kind: "write",
  description: "Escalate a request whose approval SLA is breached to a skip-level approver.",
  args: { request_id: requestId(), escalate_to_employee_id: employeeId() },
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
    const deadline = req!.approval_sla_deadline;
    if (!truthy(deadline)) {
      return {
        status: "error",
        error_type: "no_pending_approval",
        message: "Request has no pending approval routing to escalate",
      };
    }
    let notBreached = false;
    try {
      notBreached = !breached(db, deadline);
    } catch {
      // the reference goes on when it cannot read the deadline
    }
    if (notBreached) {
      return {
        status: "error",
        error_type: "sla_not_breached",
        message: "Original approval SLA has not yet been breached",
      };
    }
    const approver = employee(db, p.escalate_to_employee_id);
    if (!truthy(approver)) return employeeNotFound(p.escalate_to_employee_id);
    const newDeadline = formatDateTime(addHours(parseDate(currentDate(db)), 48));
    Object.assign(req!, {
      escalated_to: p.escalate_to_employee_id,
      escalation_sla_deadline: newDeadline,
      status: "escalated",
    });
    const name = `${pyStr(approver!.first_name)} ${pyStr(approver!.last_name)}`;
    return {
      status: "success",
      request_id: p.request_id,
      escalated_to: p.escalate_to_employee_id,
      approver_name: name,
      escalation_deadline: newDeadline,
      message: `Escalated to ${name}. 48h window.`,
    };
  },
});

export const transferToAgent = itsmTool({
  name: "transfer_to_agent",
  kind: "system",
  effect: "transfer",
  description: "Transfer the caller to a live agent.",
  args: {
    employee_id: employeeId(),
    transfer_reason: choice(TRANSFER_REASONS),
    issue_summary: str({ min: 10, max: 500 }),
  },
  run(p, _db, callIndex) {
    return {
      status: "success",
      transfer_id: `TRF-${p.employee_id}-${zfill(callIndex, 3)}`,
      employee_id: p.employee_id,
      transfer_reason: p.transfer_reason,
      estimated_wait: "2-3 minutes",
      message: "Transferring",
    };
  },
});
