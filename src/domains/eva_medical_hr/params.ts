/**
 * The eva_medical_hr tools' argument types, as the reference's
 * `medical_hr_params.py` declares them (patterns, enums, descriptions, examples),
 * and its error table: the `error_type` of each field's failure, and the wording
 * of a failure no field explains.
 *
 * @module
 */
import { str } from "../eva_common/pydantic.ts";
import type { ErrorTables } from "../eva_common/validation_error.ts";

const doc = (pattern: RegExp, description: string, examples?: string[]) =>
  str({ pattern, description, ...(examples ? { examples } : {}) });

export const employeeId = () => doc(/^EMP\d{6}$/, "EMP followed by 6 digits", ["EMP048271"]);
export const NPI = /^\d{10}$/;
export const npi = () => doc(NPI, "10-digit NPI number", ["1487392045"]);
export const facilityCode = () =>
  doc(
    /^[A-Z]{2,4}-\d{2}[A-Z]$/,
    "Facility code: 2-4 uppercase letters, dash, 2 digits, 1 uppercase letter",
    ["MGH-04B"],
  );
export const pin = () => doc(/^\d{4}$/, "4-digit PIN", ["7291"]);
export const otp = () => doc(/^\d{6}$/, "6-digit OTP code", ["483920"]);
export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const date = () => doc(DATE, "YYYY-MM-DD", ["2026-05-01"]);
export const appointmentDatetime = () =>
  doc(
    /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/,
    "Appointment date and time in YYYY-MM-DD HH:MM format",
    ["2026-05-01 09:00", "2026-06-15 14:00"],
  );
export const deaNumber = () =>
  doc(/^[A-Z]{2}\d{7}$/, "DEA number: 2 uppercase letters followed by 7 digits", ["BK4729183"]);
export const stateLicense = () =>
  doc(
    /^[A-Z]{2}-[A-Z]{2,4}-\d{6,8}$/,
    "State license: state code dash license type dash number",
    ["MA-RN-004821"],
  );
export const policyNumber = () =>
  doc(/^POL-\d{4}-[A-Z0-9]{6}$/, "Malpractice policy number in format POL-YYYY-XXXXXX", [
    "POL-2024-AX7731",
  ]);
export const shiftId = () =>
  doc(/^SHF-\d{8}-\d{4}$/, "Shift ID in format SHF-YYYYMMDD-HHMM", ["SHF-20260501-0700"]);
export const caseId = () =>
  doc(/^CASE-[A-Z0-9]{2,6}-\d{6}$/, "HR case ID in format CASE-PREFIX-6digits", [
    "CASE-FMLA-048271",
    "CASE-LIC-048271",
    "CASE-I9V-072948",
  ]);
export const PRIVILEGE_CODE = /^PRV-[A-Z]{2,6}-\d{3}$/;
export const unitCode = () =>
  doc(/^\d{1,2}[A-Z]-[A-Z]{2,6}$/, "Unit code: floor+wing dash unit type", [
    "4B-ICU",
    "2A-MED",
    "5A-SURG",
  ]);
export const visaPetition = () =>
  doc(/^[A-Z]{3}\d{10}$/, "Visa petition number: 3 uppercase letters followed by 10 digits", [
    "WAC2512045678",
  ]);
export const uscisReceipt = () =>
  doc(
    /^[A-Z]{3}\d{10}$/,
    "USCIS receipt number: 3 uppercase letters followed by 10 digits. Different from the visa petition number.",
    ["IOE0912345678"],
  );
export const onboardingTask = () =>
  doc(
    /^(BLS_UPLOAD|I9_VERIFY|BADGE_PICKUP|OCC_HEALTH|HIPAA_TRAIN|DRUG_SCREEN|TB_TEST|ORIENTATION)$/,
    "Onboarding task code: one of BLS_UPLOAD, I9_VERIFY, BADGE_PICKUP, OCC_HEALTH, HIPAA_TRAIN, DRUG_SCREEN, TB_TEST, ORIENTATION",
    ["BLS_UPLOAD", "HIPAA_TRAIN"],
  );
export const i9ListType = () =>
  doc(
    /^(LIST_A|LIST_B|LIST_C)$/,
    "I-9 document list type: LIST_A (single document proving identity + work auth), LIST_B (identity only), or LIST_C (work authorization only)",
    ["LIST_A"],
  );
export const i9DocumentCode = () =>
  doc(
    /^(US_PASSPORT|PERM_RESIDENT_CARD|EAD|DRIVERS_LICENSE|STATE_ID|SSN_CARD|BIRTH_CERT)$/,
    "I-9 document type code: US_PASSPORT, PERM_RESIDENT_CARD, EAD, DRIVERS_LICENSE, STATE_ID, SSN_CARD, or BIRTH_CERT",
    ["US_PASSPORT", "DRIVERS_LICENSE"],
  );
export const countryCode = () =>
  doc(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2 country code", ["US", "IN", "MX"]);
export const stateCode = () =>
  doc(
    /^(AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC|PR|GU|VI|AS|MP)$/,
    "2-letter US state or territory abbreviation",
    ["MA", "CA", "NY"],
  );
export const departmentCode = () =>
  doc(
    /^(CARDIOLOGY|EMERGENCY|ONCOLOGY|SURGERY|NEUROLOGY|PEDIATRICS|RADIOLOGY|PATHOLOGY|ORTHOPEDICS|OBSTETRICS)$/,
    "Department code: CARDIOLOGY, EMERGENCY, ONCOLOGY, SURGERY, NEUROLOGY, PEDIATRICS, RADIOLOGY, PATHOLOGY, ORTHOPEDICS, or OBSTETRICS",
    ["CARDIOLOGY", "EMERGENCY"],
  );
export const clearanceCode = (description: string) =>
  doc(/^CLR-[A-Z]{2,4}-\d{6}$/, description, ["CLR-OCC-048271"]);

export const EXTENSION_TYPES = ["provisional", "supervised"] as const;
export const LEAVE_CATEGORIES = [
  "employee_medical_condition",
  "family_member_serious_illness",
  "bonding",
  "military_exigency",
] as const;
export const CORRECTION_TYPES = ["on_call_hours", "overtime_hours", "differential_missed"] as const;
export const ONCALL_TIERS = ["primary", "backup"] as const;
export const PTO_TYPES = ["pto", "sick"] as const;
export const LEAVE_TYPES_ON_RECORD = ["medical_leave", "personal_leave", "fmla_leave"] as const;
export const RELATIONSHIPS = ["spouse", "child", "domestic_partner"] as const;
export const CARRIERS = [
  "proassurance",
  "coverys",
  "the_doctors_company",
  "cna",
  "zurich",
  "mag_mutual",
] as const;
export const TRANSFER_REASONS = [
  "facility_relocation",
  "role_change",
  "additional_practice_site",
] as const;
export const I9_ACTIONS = ["initial_verification", "reverification"] as const;
export const APPOINTMENT_TYPES = [
  "orientation_followup",
  "return_to_work_checkin",
  "competency_review",
] as const;
export const CREDENTIALING_NOTIFICATIONS = [
  "license_extension_submitted",
  "malpractice_updated",
  "privilege_reactivation",
] as const;
export const MANAGER_NOTIFICATIONS = [
  "shift_swap_confirmed",
  "fmla_opened",
  "payroll_correction_submitted",
  "pto_request_submitted",
] as const;
export const HR_COMPLIANCE_NOTIFICATIONS = ["i9_verified", "i9_reverified"] as const;
export const EHR_ACCESS_CHANGES = ["reactivate_full", "reactivate_restricted", "suspend"] as const;
export const IMMIGRATION_NOTIFICATIONS = ["dependent_added"] as const;

const TYPES: Record<string, string> = {
  employee_id: "invalid_employee_id_format",
  npi: "invalid_npi_format",
  facility_code: "invalid_facility_code_format",
  pin: "invalid_pin_format",
  otp_code: "invalid_otp_format",
  date_of_birth: "invalid_date_format",
  state_license_number: "invalid_license_number_format",
  extension_type: "invalid_extension_type",
  extension_days: "invalid_extension_days",
  supervising_physician_npi: "invalid_npi_format",
  shift_id: "invalid_shift_id_format",
  unit_code: "invalid_unit_code_format",
  colleague_employee_id: "invalid_employee_id_format",
  new_carrier: "invalid_carrier",
  new_policy_number: "invalid_policy_number_format",
  per_occurrence_limit_usd: "invalid_coverage_limit",
  aggregate_limit_usd: "invalid_coverage_limit",
  effective_date: "invalid_date_format",
  expiration_date: "invalid_date_format",
  task_code: "invalid_task_code",
  dea_number: "invalid_dea_number_format",
  new_facility_code: "invalid_facility_code_format",
  new_state_code: "invalid_state_code_format",
  state_code: "invalid_state_code_format",
  transfer_reason: "invalid_transfer_reason",
  leave_category: "invalid_leave_category",
  leave_start_date: "invalid_date_format",
  leave_end_date: "invalid_date_format",
  covering_employee_id: "invalid_employee_id_format",
  correction_type: "invalid_correction_type",
  corrected_hours: "invalid_hours",
  pay_period_end_date: "invalid_date_format",
  privilege_codes: "invalid_privilege_code",
  clearance_code: "invalid_clearance_code_format",
  leave_type_on_record: "invalid_leave_type_on_record",
  access_change_type: "invalid_access_change_type",
  appointment_type: "invalid_appointment_type",
  preferred_date: "invalid_date_format",
  appointment_datetime: "invalid_appointment_datetime_format",
  oncall_tier: "invalid_oncall_tier",
  availability_start_date: "invalid_date_format",
  availability_end_date: "invalid_date_format",
  blackout_dates: "invalid_date_format",
  verification_action: "invalid_verification_action",
  document_list_type: "invalid_document_list_type",
  document_type_code: "invalid_document_type_code",
  document_number: "invalid_document_number_format",
  document_expiration_date: "invalid_date_format",
  issuing_country_code: "invalid_country_code_format",
  notification_type: "invalid_notification_type",
  visa_petition_number: "invalid_petition_number_format",
  dependent_first_name: "invalid_name_format",
  dependent_last_name: "invalid_name_format",
  relationship: "invalid_relationship",
  dependent_date_of_birth: "invalid_date_format",
  dependent_country_of_birth: "invalid_country_code_format",
  uscis_receipt_number: "invalid_uscis_receipt_format",
  department_code: "invalid_department_code",
  case_id: "invalid_case_id_format",
  pto_type: "invalid_pto_type",
  start_date: "invalid_date_format",
  end_date: "invalid_date_format",
};

/** `FIELD_ERROR_TYPES` of the reference (every label is its field's name). */
export const MEDICAL_HR_ERRORS: ErrorTables = {
  types: Object.fromEntries(Object.entries(TYPES).map(([f, t]) => [f, [t, f] as const])),
  hints: {},
  fallback: (field, msg) => `Invalid or missing parameter '${field}': ${msg}`,
};
