/**
 * eva_itsm's incident flows (login troubleshooting, outages, field dispatch,
 * network diagnostics) and hardware requests (entitlement, cost-center budget,
 * submission, asset return).
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy } from "../eva_common/eva_tool.ts";
import { bool, choice, optional, str } from "../eva_common/pydantic.ts";
import { addDays, formatDate, parseDate } from "../eva_common/py_date.ts";
import { pyStr } from "../eva_airline/python_text.ts";
import {
  affectedSystem,
  assetTag,
  buildingCode,
  date,
  diagnosticRefCode,
  DISPATCH_WINDOWS,
  employeeId,
  floorCode,
  HARDWARE_REQUEST_TYPES,
  INCIDENT_CATEGORIES,
  LAPTOP_OSES,
  LAPTOP_REASONS,
  LAPTOP_SIZES,
  MONITOR_REASONS,
  MONITOR_SIZES,
  requestId,
  serviceName,
  SLA_TIERS,
  targetSystem,
  ticketNumber,
  TROUBLESHOOTING_CATEGORIES,
  URGENCIES,
} from "./params.ts";
import {
  authed,
  authRequired,
  currentDate,
  employee,
  employeeNotFound,
  itsmTool,
  requestIdFor,
  resolveFacility,
  ticketNumberFor,
} from "./world.ts";

export const getTroubleshootingGuide = itsmTool({
  name: "get_troubleshooting_guide",
  kind: "read",
  description: "Get the troubleshooting steps for an issue category, to walk through in order.",
  args: { issue_category: choice(TROUBLESHOOTING_CATEGORIES) },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const guide = at(dict(db, "troubleshooting_guides"), p.issue_category);
    if (!truthy(guide)) {
      return {
        status: "error",
        error_type: "guide_not_found",
        message: `No guide for ${p.issue_category}`,
      };
    }
    return {
      status: "success",
      issue_category: p.issue_category,
      steps: clone(guide!.steps),
      message: `${guide!.steps.length} steps`,
    };
  },
});

function accountStatus(emp: Record<string, unknown>, system: string) {
  return at(dict(emp, "account_status"), system);
}

export const attemptAccountUnlock = itsmTool({
  name: "attempt_account_unlock",
  kind: "write",
  description: "Unlock an employee's locked account on a target system.",
  args: { employee_id: employeeId(), target_system: targetSystem() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const acct = accountStatus(emp!, p.target_system);
    if (!truthy(acct)) {
      return {
        status: "error",
        error_type: "no_account",
        message: `No account found on ${p.target_system} for ${p.employee_id}`,
      };
    }
    if (acct!.locked !== true) {
      return {
        status: "error",
        error_type: "not_locked",
        message: `Account on ${p.target_system} is not locked`,
      };
    }
    const reason = acct!.lock_reason;
    if (reason === "security_investigation" || reason === "admin_hold") {
      return {
        status: "error",
        error_type: "cannot_unlock_security_hold",
        lock_reason: reason,
        message: `Account on ${p.target_system} is under ${
          reason.replaceAll("_", " ")
        }. This cannot be unlocked from the service desk. Offer to transfer the caller to a live agent; security will contact them separately.`,
      };
    }
    acct!.locked = false;
    acct!.lock_reason = null;
    return {
      status: "success",
      employee_id: p.employee_id,
      target_system: p.target_system,
      resolved: true,
      message: `Account unlocked on ${p.target_system}`,
    };
  },
});

export const attemptPasswordReset = itsmTool({
  name: "attempt_password_reset",
  kind: "write",
  description:
    "Reset an employee's expired password on a target system (temporary password to the phone on file).",
  args: { employee_id: employeeId(), target_system: targetSystem() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const acct = accountStatus(emp!, p.target_system);
    if (!truthy(acct)) {
      return {
        status: "error",
        error_type: "no_account",
        message: `No account on ${p.target_system} for ${p.employee_id}`,
      };
    }
    if (truthy(acct!.requires_in_person_reset)) {
      return {
        status: "error",
        error_type: "in_person_required",
        message:
          `Password reset for ${p.target_system} requires in-person verification at the IT security office`,
      };
    }
    acct!.password_expired = false;
    acct!.temp_password_issued = true;
    return {
      status: "success",
      employee_id: p.employee_id,
      target_system: p.target_system,
      resolved: true,
      message: "Temporary password sent to phone on file. Caller must change on first login.",
    };
  },
});

export const createIncidentTicket = itsmTool({
  name: "create_incident_ticket",
  kind: "write",
  description: "Open an incident ticket (login and network issues only after troubleshooting).",
  args: {
    employee_id: employeeId(),
    category: choice(INCIDENT_CATEGORIES),
    urgency: choice(URGENCIES),
    affected_system: affectedSystem(),
    troubleshooting_completed: bool(),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    if (
      (p.category === "login_issue" || p.category === "network_connectivity") &&
      !p.troubleshooting_completed
    ) {
      return {
        status: "error",
        error_type: "troubleshooting_required",
        message: `Complete troubleshooting before creating ${p.category} ticket`,
      };
    }
    const record: Record<string, unknown> = {
      ticket_number: null,
      employee_id: p.employee_id,
      category: p.category,
      urgency: p.urgency,
      affected_system: p.affected_system,
      troubleshooting_completed: p.troubleshooting_completed,
      status: "open",
      sla_tier: null,
      created_date: currentDate(db),
    };
    const tn = ticketNumberFor(record);
    record.ticket_number = tn;
    setDefault(db, "tickets", {})[tn] = record;
    return {
      status: "success",
      ticket_number: tn,
      category: p.category,
      urgency: p.urgency,
      message: `Ticket created: ${tn}`,
    };
  },
});

const SLA: Record<string, { resp: number; res: number }> = {
  tier_1: { resp: 1, res: 4 },
  tier_2: { resp: 4, res: 8 },
  tier_3: { resp: 8, res: 24 },
};
const TIER_FOR_URGENCY: Record<string, string> = {
  high: "tier_1",
  medium: "tier_2",
  low: "tier_3",
};

export const assignSlaTier = itsmTool({
  name: "assign_sla_tier",
  kind: "write",
  description: "Set a ticket's SLA tier (high urgency tier_1, medium tier_2, low tier_3).",
  args: { ticket_number: ticketNumber(), sla_tier: choice(SLA_TIERS) },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const ticket = at(dict(db, "tickets"), p.ticket_number);
    if (!truthy(ticket)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Ticket ${p.ticket_number} not found`,
      };
    }
    const urgency = ticket!.urgency;
    const expected = typeof urgency === "string" && Object.hasOwn(TIER_FOR_URGENCY, urgency)
      ? TIER_FOR_URGENCY[urgency]
      : undefined;
    if (expected && p.sla_tier !== expected) {
      return {
        status: "error",
        error_type: "tier_urgency_mismatch",
        message: `Ticket urgency is '${
          pyStr(urgency)
        }' which requires ${expected}, not ${p.sla_tier}`,
      };
    }
    const sla = SLA[p.sla_tier]!;
    Object.assign(ticket!, {
      sla_tier: p.sla_tier,
      sla_response_hours: sla.resp,
      sla_resolution_hours: sla.res,
    });
    return {
      status: "success",
      ticket_number: p.ticket_number,
      sla_tier: p.sla_tier,
      response_target: `${sla.resp}h`,
      resolution_target: `${sla.res}h`,
      message: `SLA ${p.sla_tier}: respond ${sla.resp}h, resolve ${sla.res}h`,
    };
  },
});

export const checkExistingOutage = itsmTool({
  name: "check_existing_outage",
  kind: "read",
  description: "Check whether a service has an active outage.",
  args: { service_name: serviceName() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const outage = at(dict(db, "active_outages"), p.service_name);
    if (!truthy(outage)) {
      return {
        status: "success",
        existing_outage: false,
        service_name: p.service_name,
        message: "No active outage found.",
      };
    }
    return {
      status: "success",
      existing_outage: true,
      ticket_number: outage!.ticket_number,
      service_name: p.service_name,
      affected_user_count: get(outage, "affected_user_count", 0),
      message: `Active outage: ${pyStr(outage!.ticket_number)}`,
    };
  },
});

export const addAffectedUser = itsmTool({
  name: "add_affected_user",
  kind: "write",
  description: "Add the caller to an active outage's affected users.",
  args: { ticket_number: ticketNumber(), employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const outage = Object.values(dict(db, "active_outages"))
      .find((o) => o.ticket_number === p.ticket_number);
    if (!outage) {
      return {
        status: "error",
        error_type: "ticket_not_found",
        message: `No active outage ${p.ticket_number}`,
      };
    }
    const affected: unknown[] = setDefault(outage, "affected_users", []);
    if (!affected.includes(p.employee_id)) affected.push(p.employee_id);
    outage.affected_user_count = affected.length;
    return {
      status: "success",
      ticket_number: p.ticket_number,
      employee_id: p.employee_id,
      total_affected: affected.length,
      message: `Added to ${p.ticket_number}`,
    };
  },
});

export const linkKnownError = itsmTool({
  name: "link_known_error",
  kind: "write",
  description: "Link a ticket to the service's known error, if one exists.",
  args: { ticket_number: ticketNumber(), service_name: serviceName() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const ticket = at(dict(db, "tickets"), p.ticket_number);
    if (!truthy(ticket)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Ticket ${p.ticket_number} not found`,
      };
    }
    const ke = at(dict(db, "known_errors"), p.service_name);
    if (!truthy(ke)) {
      return {
        status: "success",
        linked: false,
        ticket_number: p.ticket_number,
        message: "No known error found.",
      };
    }
    ticket!.linked_known_error_id = ke!.known_error_id;
    return {
      status: "success",
      linked: true,
      ticket_number: p.ticket_number,
      known_error_id: ke!.known_error_id,
      workaround: ke!.workaround ?? null,
      message: `Linked ${pyStr(ke!.known_error_id)}`,
    };
  },
});

export const scheduleFieldDispatch = itsmTool({
  name: "schedule_field_dispatch",
  kind: "write",
  description: "Schedule a field technician for a ticket on a date and time window.",
  args: {
    ticket_number: ticketNumber(),
    employee_id: employeeId(),
    building_code: buildingCode(),
    floor_code: floorCode(),
    preferred_date: date(),
    time_window: choice(DISPATCH_WINDOWS),
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const ticket = at(dict(db, "tickets"), p.ticket_number);
    if (!truthy(ticket)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Ticket ${p.ticket_number} not found`,
      };
    }
    const avail = dict(db, "field_dispatch_availability");
    const window = at(dict(avail, p.preferred_date), p.time_window);
    if (!truthy(window) || !truthy(window!.available)) {
      const alts: unknown[] = [];
      for (const d of Object.keys(avail).sort()) {
        if (d < p.preferred_date) continue;
        for (
          const [w, info] of Object.entries(avail[d] as Record<string, Record<string, unknown>>)
        ) {
          if (truthy(info.available)) alts.push({ date: d, time_window: w });
        }
      }
      return {
        status: "error",
        error_type: "no_availability",
        message: `No tech on ${p.preferred_date} ${p.time_window}`,
        alternative_slots: alts.slice(0, 3),
      };
    }
    const dsp = `DSP-${p.ticket_number.slice(-7)}`;
    window!.available = false;
    Object.assign(ticket!, {
      dispatch_id: dsp,
      dispatch_date: p.preferred_date,
      dispatch_window: p.time_window,
    });
    return {
      status: "success",
      dispatch_id: dsp,
      date: p.preferred_date,
      time_window: p.time_window,
      message: `Dispatch ${dsp} confirmed`,
    };
  },
});

export const attachDiagnosticLog = itsmTool({
  name: "attach_diagnostic_log",
  kind: "write",
  description: "Attach the caller's diagnostic reference code to a ticket.",
  args: { ticket_number: ticketNumber(), diagnostic_ref_code: diagnosticRefCode() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const ticket = at(dict(db, "tickets"), p.ticket_number);
    if (!truthy(ticket)) {
      return {
        status: "error",
        error_type: "not_found",
        message: `Ticket ${p.ticket_number} not found`,
      };
    }
    Object.assign(ticket!, {
      diagnostic_ref_code: p.diagnostic_ref_code,
      diagnostic_attached: true,
    });
    return {
      status: "success",
      ticket_number: p.ticket_number,
      diagnostic_ref_code: p.diagnostic_ref_code,
      message: "Diagnostic attached",
    };
  },
});

/** Whole months from `from` to `to`, as the reference counts a device's age. */
function monthsBetween(from: string, to: string): number {
  const a = new Date(parseDate(from));
  const b = new Date(parseDate(to));
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  if (b.getUTCDate() < a.getUTCDate()) months -= 1;
  return months;
}

export const checkHardwareEntitlement = itsmTool({
  name: "check_hardware_entitlement",
  kind: "read",
  description: "Check whether an employee may request a laptop replacement or a monitor bundle.",
  args: { employee_id: employeeId(), request_type: choice(HARDWARE_REQUEST_TYPES) },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const emp = employee(db, p.employee_id);
    if (!truthy(emp)) return employeeNotFound(p.employee_id);
    const ent = at(dict(emp, "hardware_entitlements"), p.request_type);
    if (!truthy(ent)) {
      return {
        status: "error",
        error_type: "no_entitlement",
        message: `No entitlement for ${p.request_type}`,
      };
    }
    if (truthy(ent!.pending_request)) {
      return {
        status: "error",
        error_type: "request_already_pending",
        message: `Pending: ${pyStr(ent!.pending_request_id ?? null)}`,
      };
    }
    let age: number | null = null;
    const tag = ent!.current_asset_tag ?? null;
    if (truthy(tag)) {
      const asset = at(dict(db, "assets"), tag);
      if (truthy(asset) && truthy(asset!.purchase_date)) {
        try {
          age = monthsBetween(asset!.purchase_date, currentDate(db));
        } catch {
          // the reference ignores a date it cannot read
        }
      }
    }
    if (p.request_type === "laptop_replacement") {
      if (age !== null && age < 36) {
        return {
          status: "error",
          error_type: "device_too_new",
          message:
            `Laptop is ${age} months old; minimum 36 months for standard replacement. File a security incident if lost/stolen/damaged.`,
        };
      }
    } else if (age !== null && age < 12) {
      return {
        status: "error",
        error_type: "replaced_too_recently",
        message: `Monitor is ${age} months old; minimum 12 months between replacements.`,
      };
    }
    let details = null;
    if (truthy(tag)) {
      const asset = at(dict(db, "assets"), tag);
      if (truthy(asset)) {
        details = {
          asset_tag: tag,
          os: asset!.os ?? null,
          size: asset!.size ?? null,
          model: asset!.model ?? null,
        };
      }
    }
    return {
      status: "success",
      eligible: true,
      employee_id: p.employee_id,
      request_type: p.request_type,
      current_asset_tag: tag,
      device_age_months: age,
      current_asset: details,
      message: "Eligible",
    };
  },
});

const LAPTOP_REASON_LIST = `[${LAPTOP_REASONS.map((r) => `'${r}'`).join(", ")}]`;
const MONITOR_REASON_LIST = `[${MONITOR_REASONS.map((r) => `'${r}'`).join(", ")}]`;

export const submitHardwareRequest = itsmTool({
  name: "submit_hardware_request",
  kind: "write",
  description:
    "Submit a laptop replacement (justification, laptop_os, laptop_size) or monitor bundle (justification, monitor_size) request.",
  args: {
    employee_id: employeeId(),
    request_type: choice(HARDWARE_REQUEST_TYPES),
    justification: str(),
    current_asset_tag: optional(str({ pattern: /^AST-[A-Z]{3}-\d{6}$/ }), {
      emptyToNone: true,
      doc: {
        description:
          "Asset tag of the existing device. Required for laptop_replacement (unless justification is lost_or_stolen) and for monitor_bundle when justification is replacement. **Omit this field** (do not include the key) for monitor_bundle with justification=new_setup, or when otherwise not applicable — do not pass null, empty string, or 'N/A'.",
      },
    }),
    laptop_os: optional(choice(LAPTOP_OSES), {
      emptyToNone: true,
      doc: {
        description:
          "Operating system. Required only when request_type is laptop_replacement. **Omit this field** for monitor_bundle and other request types.",
      },
    }),
    laptop_size: optional(choice(LAPTOP_SIZES), {
      emptyToNone: true,
      doc: {
        description:
          "Laptop screen size. Required only when request_type is laptop_replacement. **Omit this field** for monitor_bundle and other request types.",
      },
    }),
    monitor_size: optional(choice(MONITOR_SIZES), {
      emptyToNone: true,
      doc: {
        description:
          "Monitor size. Required only when request_type is monitor_bundle. **Omit this field** for laptop_replacement and other request types.",
      },
    }),
    delivery_building: buildingCode(),
    delivery_floor: floorCode(),
  },
  check(p) {
    if (p.request_type === "laptop_replacement") {
      if (!(LAPTOP_REASONS as readonly string[]).includes(p.justification)) {
        return `justification '${p.justification}' invalid for laptop_replacement; must be one of ${LAPTOP_REASON_LIST}`;
      }
      p.monitor_size = null;
      if (p.laptop_os == null) {
        return "laptop_os is required when request_type is laptop_replacement. Add 'laptop_os' to your tool call with one of: macos, windows.";
      }
      if (p.laptop_size == null) {
        return "laptop_size is required when request_type is laptop_replacement. Add 'laptop_size' to your tool call with one of: 13_inch, 14_inch, 16_inch.";
      }
      if (p.justification !== "lost_or_stolen" && p.current_asset_tag == null) {
        return "current_asset_tag is required when request_type is laptop_replacement (except when justification is lost_or_stolen). Add 'current_asset_tag' with the format AST-XXX-NNNNNN (e.g. AST-LPT-284719).";
      }
    } else {
      if (!(MONITOR_REASONS as readonly string[]).includes(p.justification)) {
        return `justification '${p.justification}' invalid for monitor_bundle; must be one of ${MONITOR_REASON_LIST}`;
      }
      p.laptop_os = null;
      p.laptop_size = null;
      if (p.monitor_size == null) {
        return "monitor_size is required when request_type is monitor_bundle. Add 'monitor_size' to your tool call with one of: 24_inch, 27_inch, 32_inch.";
      }
      if (p.justification === "replacement" && p.current_asset_tag == null) {
        return "current_asset_tag is required when request_type is monitor_bundle and justification is replacement. Add 'current_asset_tag' with the format AST-XXX-NNNNNN (e.g. AST-MON-104582).";
      }
      if (p.justification === "new_setup") p.current_asset_tag = null;
    }
    return undefined;
  },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const [bcode, err] = resolveFacility("building", p.delivery_building, db);
    if (err) return err;
    const record: Record<string, unknown> = {
      request_id: null,
      employee_id: p.employee_id,
      request_type: p.request_type,
      justification: p.justification,
      current_asset_tag: p.current_asset_tag ?? null,
      monitor_size: p.monitor_size ?? null,
      laptop_os: p.laptop_os ?? null,
      laptop_size: p.laptop_size ?? null,
      delivery_building: bcode,
      delivery_floor: p.delivery_floor,
      status: "submitted",
      created_date: currentDate(db),
    };
    const rid = requestIdFor(record, "HW");
    record.request_id = rid;
    setDefault(db, "requests", {})[rid] = record;
    const ent = at(
      dict(employee(db, p.employee_id) ?? {}, "hardware_entitlements"),
      p.request_type,
    );
    if (truthy(ent)) Object.assign(ent!, { pending_request: true, pending_request_id: rid });
    if (p.justification === "lost_or_stolen" && truthy(p.current_asset_tag)) {
      const a = at(dict(db, "assets"), p.current_asset_tag!);
      if (truthy(a)) {
        a!.lifecycle_status = "lost_or_stolen";
        a!.status = "inactive";
      }
    }
    return {
      status: "success",
      request_id: rid,
      request_type: p.request_type,
      message: `Submitted: ${rid}`,
    };
  },
});

export const initiateAssetReturn = itsmTool({
  name: "initiate_asset_return",
  kind: "write",
  description:
    "Open a return authorization for the device a new one replaces (14 days to return it).",
  args: { employee_id: employeeId(), asset_tag: assetTag(), request_id: requestId() },
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
    const deadline = formatDate(addDays(parseDate(currentDate(db)), 14));
    const rma = `RMA-${p.asset_tag.slice(-6)}`;
    asset!.return_authorization = {
      return_auth_id: rma,
      request_id: p.request_id,
      return_deadline: deadline,
      status: "pending_return",
    };
    return {
      status: "success",
      return_auth_id: rma,
      asset_tag: p.asset_tag,
      return_deadline: deadline,
      message: `RMA ${rma}: return by ${deadline}`,
    };
  },
});

/** The cost center on an employee's record, checked against their department. */
function costCenterOf(db: Record<string, unknown>, eid: string) {
  const emp = employee(db, eid);
  if (!truthy(emp)) return { error: employeeNotFound(eid) };
  const ccCode = emp!.cost_center_code;
  const dept = emp!.department_code;
  if (!truthy(ccCode)) {
    return {
      error: {
        status: "error",
        error_type: "cc_not_on_file",
        message: `No cost center on file for ${eid}`,
      },
    };
  }
  const cc = at(dict(db, "cost_centers"), ccCode);
  if (!truthy(cc)) {
    return {
      error: {
        status: "error",
        error_type: "not_found",
        message: `Cost center ${ccCode} not found`,
      },
    };
  }
  return { ccCode: ccCode as string, dept, cc: cc! };
}

export const verifyCostCenterBudget = itsmTool({
  name: "verify_cost_center_budget",
  kind: "read",
  description: "Check the budget of the employee's cost center (read from their record).",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const found = costCenterOf(db, p.employee_id);
    if (found.error) return found.error;
    const { ccCode, dept, cc } = found;
    if (cc.department_code !== dept) {
      return {
        status: "error",
        error_type: "department_mismatch",
        message: `${ccCode} belongs to ${pyStr(cc.department_code)}, not ${pyStr(dept ?? null)}`,
      };
    }
    if (!truthy(get(cc, "has_budget", true))) {
      return {
        status: "error",
        error_type: "insufficient_budget",
        message: `Cost center ${ccCode} has insufficient budget`,
        cost_center_code: ccCode,
        remaining_budget_usd: get(cc, "remaining_budget_usd", 0),
      };
    }
    return {
      status: "success",
      cost_center_code: ccCode,
      department_code: dept ?? null,
      has_budget: true,
      remaining_budget_usd: get(cc, "remaining_budget_usd", 0),
      message: "Budget verified",
    };
  },
});

export const validateCostCenter = itsmTool({
  name: "validate_cost_center",
  kind: "read",
  description: "Validate the employee's cost center (read from their record) for a license.",
  args: { employee_id: employeeId() },
  run(p, db) {
    if (!authed(db, "employee_auth")) return authRequired();
    const found = costCenterOf(db, p.employee_id);
    if (found.error) return found.error;
    const { ccCode, dept, cc } = found;
    if (cc.department_code !== dept) {
      return {
        status: "error",
        error_type: "department_mismatch",
        message: `${ccCode} not for ${pyStr(dept ?? null)}`,
      };
    }
    return {
      status: "success",
      cost_center_code: ccCode,
      department_code: dept ?? null,
      validated: true,
      message: `Cost center ${ccCode} validated`,
    };
  },
});
