/**
 * eva_medical_hr's provider flows: license extensions, malpractice coverage, DEA
 * registration transfers, privilege reactivation after leave and EHR access, with
 * the credentialing committee and state PDMP notified.
 *
 * @module
 */
import { at, clone, dict, get, setDefault, truthy } from "../eva_common/eva_tool.ts";
import {
  choice,
  documented,
  int,
  list,
  literalInts,
  optional,
  str,
} from "../eva_common/pydantic.ts";
import { daysBetween, parseDate } from "../eva_common/py_date.ts";
import { pyRepr } from "../eva_airline/python_text.ts";
import {
  appointmentDatetime,
  CARRIERS,
  caseId,
  clearanceCode,
  CREDENTIALING_NOTIFICATIONS,
  date,
  deaNumber,
  departmentCode,
  EHR_ACCESS_CHANGES,
  EXTENSION_TYPES,
  facilityCode,
  LEAVE_TYPES_ON_RECORD,
  NPI,
  npi,
  policyNumber,
  PRIVILEGE_CODE,
  stateCode,
  stateLicense,
  TRANSFER_REASONS,
} from "./params.ts";
import {
  authed,
  authRequired,
  bookSlot,
  caseIdFor,
  currentDate,
  hrTool,
  notify,
  provider,
  providerEmployeeId,
  providerNotFound,
} from "./world.ts";

type Rec = Record<string, unknown>;

function license(prov: Rec, number: string, npiValue: string): { lic?: Rec; error?: Rec } {
  const lic = at(dict(prov, "licenses"), number);
  if (truthy(lic)) return { lic: lic! };
  return {
    error: {
      status: "error",
      error_type: "license_not_found",
      message: `License ${number} not found for NPI ${npiValue}`,
    },
  };
}

export const getLicenseRecord = hrTool({
  name: "get_license_record",
  kind: "read",
  description: "Look up a provider's state license.",
  args: { npi: npi(), state_license_number: stateLicense() },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const { lic, error } = license(prov!, p.state_license_number, p.npi);
    if (error) return error;
    return { status: "success", license: clone(lic) };
  },
});

export const checkExtensionEligibility = hrTool({
  name: "check_extension_eligibility",
  kind: "read",
  description: "Check whether a license can be extended (within 60 days of expiry, no hold).",
  args: { npi: npi(), state_license_number: stateLicense() },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const { lic: found, error } = license(prov!, p.state_license_number, p.npi);
    if (error) return error;
    const lic = found!;
    if (lic.extension_status === "pending") {
      return {
        status: "error",
        error_type: "already_extended",
        message: "An extension request is already pending for this license",
      };
    }
    if (truthy(lic.investigation_hold)) {
      return {
        status: "error",
        error_type: "investigation_hold",
        message: "License is under investigation and cannot be extended",
      };
    }
    const today = currentDate(db);
    const expiration = get(lic, "expiration_date", "");
    if (truthy(today) && truthy(expiration)) {
      const days = daysBetween(parseDate(expiration), parseDate(today));
      if (days < 0) {
        return {
          status: "error",
          error_type: "license_expired",
          message:
            `License expired on ${expiration}. Extensions cannot be requested for already-expired licenses.`,
        };
      }
      if (days > 60) {
        return {
          status: "error",
          error_type: "extension_too_early",
          message:
            `License does not expire for ${days} days. Extensions may only be requested within 60 days of the expiration date.`,
        };
      }
    }
    return {
      status: "success",
      eligible: true,
      license_expiration_date: lic.expiration_date ?? null,
      message: "License is eligible for extension",
    };
  },
});

export const submitLicenseExtension = hrTool({
  name: "submit_license_extension",
  kind: "write",
  description:
    "Submit a provisional or supervised (with the supervising physician's NPI) license extension.",
  args: {
    npi: npi(),
    state_license_number: stateLicense(),
    extension_type: choice(EXTENSION_TYPES),
    extension_days: documented(literalInts([30, 60, 90]), {
      description: "Extension duration in days: exactly 30, 60, or 90",
    }),
    supervising_physician_npi: optional(str({ pattern: NPI }), {
      doc: {
        description:
          "NPI of the supervising physician. Required for supervised extensions, must be omitted for provisional.",
      },
    }),
  },
  // A provisional extension ignores whatever placeholder NPI the agent sends.
  prepare(raw) {
    if (typeof raw !== "object" || raw === null) return raw;
    const o = raw as Rec;
    if (o.extension_type !== "provisional") return raw;
    const { supervising_physician_npi: _drop, ...rest } = o;
    return rest;
  },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const { lic: found, error } = license(prov!, p.state_license_number, p.npi);
    if (error) return error;
    const lic = found!;
    const supervisor = p.supervising_physician_npi ?? null;
    if (p.extension_type === "supervised") {
      if (!truthy(supervisor)) {
        return {
          status: "error",
          error_type: "supervising_physician_required",
          message: "Supervised extensions require a supervising physician NPI",
        };
      }
      if (!Object.hasOwn(dict(db, "providers"), supervisor!)) {
        return {
          status: "error",
          error_type: "supervising_physician_not_found",
          message: `Supervising physician NPI ${supervisor} not found`,
        };
      }
    }
    const cid = caseIdFor("LIC", providerEmployeeId(prov!, p.npi));
    const update: Rec = {
      extension_status: "pending",
      extension_type: p.extension_type,
      extension_days: p.extension_days,
      extension_case_id: cid,
    };
    if (p.extension_type === "supervised") update.supervising_physician_npi = supervisor;
    Object.assign(lic, update);
    return {
      status: "success",
      npi: p.npi,
      state_license_number: p.state_license_number,
      extension_type: p.extension_type,
      extension_days: p.extension_days,
      supervising_physician_npi: supervisor,
      case_id: cid,
      message: `${p.extension_type} extension submitted. Case ID: ${cid}`,
    };
  },
});

export const notifyCredentialingCommittee = hrTool({
  name: "notify_credentialing_committee",
  kind: "write",
  description: "Notify the credentialing committee of a license, malpractice or privilege change.",
  args: {
    npi: npi(),
    case_id: caseId(),
    notification_type: choice(CREDENTIALING_NOTIFICATIONS),
  },
  run(p, db) {
    if (!authed(db, "provider_auth") && !authed(db, "otp_auth")) {
      return authRequired("provider_auth or otp_auth");
    }
    if (!truthy(provider(db, p.npi))) return providerNotFound(p.npi);
    notify(db, {
      recipient: "credentialing_committee",
      npi: p.npi,
      case_id: p.case_id,
      notification_type: p.notification_type,
    });
    return {
      status: "success",
      npi: p.npi,
      case_id: p.case_id,
      notification_type: p.notification_type,
      message: `Credentialing committee notified: ${p.notification_type}`,
    };
  },
});

export const getMalpracticeRecord = hrTool({
  name: "get_malpractice_record",
  kind: "read",
  description: "Look up a provider's malpractice insurance.",
  args: { npi: npi() },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const mal = prov!.malpractice;
    if (!truthy(mal)) {
      return {
        status: "error",
        error_type: "record_not_found",
        message: `No malpractice record found for NPI ${p.npi}`,
      };
    }
    return { status: "success", malpractice: clone(mal) };
  },
});

export const updateMalpracticeCoverage = hrTool({
  name: "update_malpractice_coverage",
  kind: "write",
  description: "Record new malpractice coverage (below $1M per occurrence needs re-credentialing).",
  args: {
    npi: npi(),
    new_carrier: choice(CARRIERS),
    new_policy_number: policyNumber(),
    per_occurrence_limit_usd: documented(int(), {
      description: "Per-occurrence coverage limit in USD as an integer",
      examples: ["1000000", "2000000"],
    }),
    aggregate_limit_usd: documented(int(), {
      description: "Aggregate coverage limit in USD as an integer",
      examples: ["3000000", "5000000"],
    }),
    effective_date: date(),
    expiration_date: date(),
  },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const mal = prov!.malpractice as Rec;
    if (!truthy(mal)) {
      return {
        status: "error",
        error_type: "record_not_found",
        message:
          `No malpractice record on file for NPI ${p.npi}. Contact credentialing to have a record initialized first.`,
      };
    }
    const recredential = p.per_occurrence_limit_usd < 1_000_000;
    const cid = caseIdFor("MAL", providerEmployeeId(prov!, p.npi));
    Object.assign(mal, {
      carrier: p.new_carrier,
      policy_number: p.new_policy_number,
      per_occurrence_limit_usd: p.per_occurrence_limit_usd,
      aggregate_limit_usd: p.aggregate_limit_usd,
      effective_date: p.effective_date,
      expiration_date: p.expiration_date,
      recredential_required: recredential,
      update_case_id: cid,
    });
    let message = "Malpractice coverage updated successfully";
    if (recredential) {
      message += `. Coverage below threshold — re-credentialing required. Case ID: ${cid}`;
    }
    return {
      status: "success",
      npi: p.npi,
      new_carrier: p.new_carrier,
      new_policy_number: p.new_policy_number,
      per_occurrence_limit_usd: p.per_occurrence_limit_usd,
      aggregate_limit_usd: p.aggregate_limit_usd,
      effective_date: p.effective_date,
      expiration_date: p.expiration_date,
      recredential_required: recredential,
      case_id: cid,
      message,
    };
  },
});

function deaOf(db: Rec, p: { npi: string; dea_number: string }, secondFactor: string): Rec {
  if (!authed(db, "provider_auth")) return { error: authRequired("provider_auth") };
  if (!authed(db, "otp_auth")) {
    return {
      error: {
        status: "error",
        error_type: "second_factor_required",
        message: secondFactor,
      },
    };
  }
  const prov = provider(db, p.npi);
  if (!truthy(prov)) return { error: providerNotFound(p.npi) };
  const dea = prov!.dea_registration as Rec | undefined;
  if (!truthy(dea) || dea!.dea_number !== p.dea_number) {
    return {
      error: {
        status: "error",
        error_type: "dea_record_not_found",
        message: `DEA number ${p.dea_number} not found for NPI ${p.npi}`,
      },
    };
  }
  return { prov, dea };
}

export const getDeaRecord = hrTool({
  name: "get_dea_record",
  kind: "read",
  description: "Look up a provider's DEA registration (needs OTP as a second factor).",
  args: { npi: npi(), dea_number: deaNumber() },
  run(p, db) {
    const found = deaOf(db, p, "DEA operations require OTP verification as a second factor");
    if (found.error) return found.error as Rec;
    return { status: "success", dea_registration: clone(found.dea) };
  },
});

export const transferDeaRegistration = hrTool({
  name: "transfer_dea_registration",
  kind: "write",
  description: "Transfer a DEA registration to a new facility and state from an effective date.",
  args: {
    npi: npi(),
    dea_number: deaNumber(),
    new_facility_code: facilityCode(),
    new_state_code: stateCode(),
    transfer_reason: choice(TRANSFER_REASONS),
    effective_date: date(),
  },
  run(p, db) {
    const found = deaOf(db, p, "DEA transfer requires OTP verification as a second factor");
    if (found.error) return found.error as Rec;
    const dea = found.dea as Rec;
    const cid = caseIdFor("DEA", providerEmployeeId(found.prov as Rec, p.npi));
    dea.status = "transfer_pending";
    dea.pending_transfer = {
      new_facility_code: p.new_facility_code,
      new_state_code: p.new_state_code,
      transfer_reason: p.transfer_reason,
      effective_date: p.effective_date,
      transfer_case_id: cid,
    };
    return {
      status: "success",
      npi: p.npi,
      dea_number: p.dea_number,
      current_facility_code: dea.facility_code ?? null,
      current_state_code: dea.state_code ?? null,
      new_facility_code: p.new_facility_code,
      new_state_code: p.new_state_code,
      transfer_reason: p.transfer_reason,
      effective_date: p.effective_date,
      case_id: cid,
      message:
        `DEA transfer submitted. Current registration unchanged until effective date ${p.effective_date}. Case ID: ${cid}`,
    };
  },
});

export const notifyPdmp = hrTool({
  name: "notify_pdmp",
  kind: "write",
  description: "Notify the state prescription drug monitoring program of a DEA transfer.",
  args: {
    npi: npi(),
    dea_number: deaNumber(),
    state_code: stateCode(),
    facility_code: facilityCode(),
  },
  run(p, db) {
    if (!authed(db, "provider_auth")) return authRequired("provider_auth");
    if (!truthy(provider(db, p.npi))) return providerNotFound(p.npi);
    notify(db, {
      recipient: "pdmp",
      npi: p.npi,
      dea_number: p.dea_number,
      state_code: p.state_code,
      facility_code: p.facility_code,
      notification_type: "dea_transfer",
    });
    return {
      status: "success",
      npi: p.npi,
      dea_number: p.dea_number,
      state_code: p.state_code,
      facility_code: p.facility_code,
      message: `PDMP notified for state ${p.state_code}, facility ${p.facility_code}`,
    };
  },
});

export const getPrivilegeRecord = hrTool({
  name: "get_privilege_record",
  kind: "read",
  description: "Look up a provider's clinical privileges.",
  args: { npi: npi() },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const privileges = prov!.privileges;
    if (!truthy(privileges)) {
      return {
        status: "error",
        error_type: "privilege_record_not_found",
        message: `No privilege record found for NPI ${p.npi}`,
      };
    }
    return { status: "success", privileges: clone(privileges) };
  },
});

function privilegeList(prov: Rec): Rec[] {
  return get(dict(prov, "privileges"), "privilege_list", []);
}

export const checkReactivationEligibility = hrTool({
  name: "check_reactivation_eligibility",
  kind: "read",
  description: "Check the occupational health clearance code and list the suspended privileges.",
  args: {
    npi: npi(),
    clearance_code: clearanceCode(
      "Occupational health clearance code in format CLR-LETTERS-6digits",
    ),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    if (prov!.clearance_code !== p.clearance_code) {
      return {
        status: "error",
        error_type: "invalid_clearance_code",
        message: "Clearance code does not match occupational health records",
      };
    }
    const suspended = privilegeList(prov!).filter((x) => x.status === "suspended").map((x) =>
      x.code
    );
    return {
      status: "success",
      eligible: true,
      suspended_privilege_codes: suspended,
      message:
        `Clearance verified. ${suspended.length} suspended privilege(s) available for reactivation`,
    };
  },
});

export const scheduleCompetencyReview = hrTool({
  name: "schedule_competency_review",
  kind: "write",
  description: "Book a competency review slot (before privileges are reactivated).",
  args: {
    npi: npi(),
    department_code: departmentCode(),
    appointment_datetime: appointmentDatetime(),
  },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    const err = bookSlot(db, "competency_review", p.department_code, p.appointment_datetime);
    if (err) return err;
    const appt = caseIdFor("CMP", providerEmployeeId(prov!, p.npi));
    setDefault(prov!, "scheduled_appointments", []).push({
      appointment_id: appt,
      type: "competency_review",
      department_code: p.department_code,
      appointment_datetime: p.appointment_datetime,
      status: "scheduled",
    });
    return {
      status: "success",
      npi: p.npi,
      appointment_id: appt,
      department_code: p.department_code,
      appointment_datetime: p.appointment_datetime,
      message: `Competency review scheduled for ${p.appointment_datetime}. Appointment ID: ${appt}`,
    };
  },
});

export const reactivatePrivileges = hrTool({
  name: "reactivate_privileges",
  kind: "write",
  description: "Reactivate suspended privileges once the competency review is booked.",
  args: {
    npi: npi(),
    privilege_codes: list(str({ pattern: PRIVILEGE_CODE })),
    clearance_code: clearanceCode(
      "Occupational health clearance code — same value used in check_reactivation_eligibility",
    ),
    leave_type_on_record: choice(LEAVE_TYPES_ON_RECORD),
  },
  // The reference activates each code it finds before it reports one it did not.
  keepsWritesOnError: true,
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    if (prov!.clearance_code !== p.clearance_code) {
      return {
        status: "error",
        error_type: "invalid_clearance_code",
        message: "Clearance code does not match occupational health records",
      };
    }
    const privileges = privilegeList(prov!);
    const activated: string[] = [];
    const notFound: string[] = [];
    for (const code of p.privilege_codes) {
      const match = privileges.find((x) => x.code === code);
      if (match) {
        match.status = "active";
        activated.push(code);
      } else notFound.push(code);
    }
    if (notFound.length) {
      return {
        status: "error",
        error_type: "privilege_not_found",
        message: `Privilege code(s) not found: ${pyRepr(notFound)}`,
      };
    }
    if (!Object.hasOwn(prov!, "privileges")) throw new Error("'privileges'");
    const cid = caseIdFor("PRV", providerEmployeeId(prov!, p.npi));
    (prov!.privileges as Rec).reactivation_case_id = cid;
    return {
      status: "success",
      npi: p.npi,
      activated_privileges: activated,
      leave_type_on_record: p.leave_type_on_record,
      case_id: cid,
      message: `Privileges reactivated. Case ID: ${cid}`,
    };
  },
});

export const updateEhrAccess = hrTool({
  name: "update_ehr_access",
  kind: "write",
  description: "Update a provider's EHR access after a privilege change.",
  args: { npi: npi(), case_id: caseId(), access_change_type: choice(EHR_ACCESS_CHANGES) },
  run(p, db) {
    if (!authed(db, "otp_auth")) return authRequired("otp_auth");
    const prov = provider(db, p.npi);
    if (!truthy(prov)) return providerNotFound(p.npi);
    prov!.ehr_access_status = p.access_change_type;
    prov!.ehr_access_case_id = p.case_id;
    return {
      status: "success",
      npi: p.npi,
      case_id: p.case_id,
      access_change_type: p.access_change_type,
      message: `EHR access updated to ${p.access_change_type}`,
    };
  },
});
