/**
 * The eva_itsm tools' argument types, as the reference's `itsm_params.py` declares
 * them (patterns, enums, descriptions and examples), and its two error tables: the
 * `error_type` of each field's failure and the hints some failures carry.
 *
 * @module
 */
import { choice, str } from "../eva_common/pydantic.ts";
import type { ErrorTables } from "../eva_common/validation_error.ts";

export const employeeId = () =>
  str({ pattern: /^EMP\d{6}$/, description: "EMP followed by 6 digits", examples: ["EMP048271"] });
export const phoneLastFour = () =>
  str({ pattern: /^\d{4}$/, description: "Last 4 digits of phone number", examples: ["7294"] });
export const otp = () =>
  str({ pattern: /^\d{6}$/, description: "6-digit OTP code", examples: ["483920"] });
export const managerAuthCode = () =>
  str({
    pattern: /^[A-Z0-9]{6}$/,
    description: "6-char alphanumeric manager auth code",
    examples: ["K4M2P9"],
  });
export const ticketNumber = () =>
  str({
    pattern: /^INC[a-f0-9]{12}$/,
    description: "INC followed by 12 hex chars (content-hash)",
    examples: ["INCfa5e5b2062da"],
  });
export const ASSET_TAG = /^AST-[A-Z]{3}-\d{6}$/;
export const assetTag = () =>
  str({ pattern: ASSET_TAG, description: "AST-XXX-NNNNNN", examples: ["AST-LPT-284719"] });
export const licenseAssignmentId = () =>
  str({ pattern: /^LASGN-\d{6}$/, description: "LASGN-NNNNNN", examples: ["LASGN-048271"] });
export const buildingCode = () =>
  str({
    min: 1,
    max: 60,
    description:
      "Building code (e.g. 'BLD3') OR building name/alias (e.g. 'Headquarters', 'HQ', 'Downtown'). Tools resolve names to canonical code via facilities.buildings aliases; unknown names return `name_not_found`.",
    examples: ["BLD3", "Downtown"],
  });
export const FLOOR_CODE = /^FL\d{1,2}$/;
export const floorCode = () =>
  str({ pattern: FLOOR_CODE, description: "FL followed by 1-2 digits", examples: ["FL2"] });
export const roomCode = () =>
  str({
    pattern: /^BLD\d{1,2}-FL\d{1,2}-RM\d{3}$/,
    description: "BLD-FL-RM code (returned by check_room_availability; not caller-provided)",
    examples: ["BLD3-FL2-RM204"],
  });
export const deskCode = () =>
  str({
    pattern: /^BLD\d{1,2}-FL\d{1,2}-D\d{3}$/,
    description: "BLD-FL-D code (returned by check_desk_availability)",
    examples: ["BLD3-FL2-D107"],
  });
export const PARKING_ZONE = { min: 1, max: 60 } as const;
export const parkingSpaceId = () =>
  str({
    pattern: /^PZ[A-Z]-\d{3}$/,
    description: "PZX-NNN (returned by check_parking_availability)",
    examples: ["PZA-042"],
  });
export const departmentCode = () =>
  str({
    pattern: /^(ENG|MKTG|SALES|FIN|HR|OPS|LEGAL|INFRA|SECUR|EXEC|DSGN|DATA)$/,
    description: "Department code",
    examples: ["ENG"],
  });
export const roleCode = () =>
  str({
    pattern: /^(SWE|PM|DESGN|ANLST|ADMIN|MGENG|MGOPS|MGSLS|MGHR|SECUR|INFRA|DATAN|LEGAL)$/,
    description: "Role code",
    examples: ["SWE"],
  });
export const GROUP_CODE = /^GRP-[A-Z]{2,8}$/;
export const groupCode = () =>
  str({ pattern: GROUP_CODE, description: "GRP-XXXXXX", examples: ["GRP-ENGCORE"] });
export const permissionTemplateId = () =>
  str({
    pattern: /^PTPL-[A-Z]{2,5}-\d{2}$/,
    description: "PTPL-XXX-NN",
    examples: ["PTPL-SWE-01"],
  });
export const requestId = () =>
  str({
    pattern: /^REQ-[A-Z]{2,5}-[a-f0-9]{12}$/,
    description: "REQ-CAT-XXXXXXXXXXXX (CAT plus 12-char content hash)",
    examples: ["REQ-HW-6d94147c44a3"],
  });
export const caseId = () =>
  str({
    pattern: /^CASE-[A-Z]{2,5}-[a-f0-9]{12}$/,
    description: "CASE-CAT-XXXXXXXXXXXX",
    examples: ["CASE-ACCT-6b54dcee093d"],
  });
export const securityCaseId = () =>
  str({
    pattern: /^SEC-[a-f0-9]{12}$/,
    description: "SEC-XXXXXXXXXXXX",
    examples: ["SEC-a3f8e1b2c4d5"],
  });
export const date = () =>
  str({ pattern: /^\d{4}-\d{2}-\d{2}$/, description: "YYYY-MM-DD", examples: ["2026-08-15"] });
export const time = () =>
  str({ pattern: /^\d{2}:\d{2}$/, description: "HH:MM", examples: ["09:00"] });
export const diagnosticRefCode = () =>
  str({ pattern: /^DIAG-[A-Z0-9]{8}$/, description: "DIAG-XXXXXXXX", examples: ["DIAG-4KM29X7B"] });
export const catalogName = () =>
  str({
    min: 1,
    max: 120,
    description:
      "Catalog item name (e.g. 'Slack Enterprise'); resolved to catalog_id via names + aliases",
    examples: ["Slack Enterprise"],
  });
export const serviceName = () =>
  str({
    pattern:
      /^(email_exchange|vpn_gateway|erp_oracle|crm_platform|hr_portal|code_repository|ci_cd_pipeline|file_storage|sso_identity|print_service)$/,
    description: "Service catalog name",
    examples: ["email_exchange"],
  });
export const targetSystem = () =>
  str({
    pattern: /^(active_directory|sso_identity|email_exchange|vpn_gateway|erp_oracle)$/,
    description:
      "Target system: active_directory, sso_identity, email_exchange, vpn_gateway, or erp_oracle",
    examples: ["active_directory"],
  });
export const affectedSystem = () =>
  str({
    pattern:
      /^(active_directory|sso_identity|email_exchange|vpn_gateway|erp_oracle|crm_platform|hr_portal|code_repository|ci_cd_pipeline|file_storage|print_service|vpn|wifi|ethernet|AST-[A-Z]{3}-\d{6})$/,
    description: "Affected system ID: service name, network type (vpn/wifi/ethernet), or asset tag",
    examples: ["email_exchange", "vpn", "AST-LPT-284719"],
  });

export const INCIDENT_CATEGORIES = [
  "login_issue",
  "service_outage",
  "hardware_malfunction",
  "network_connectivity",
] as const;
export const URGENCIES = ["low", "medium", "high"] as const;
export const SLA_TIERS = ["tier_1", "tier_2", "tier_3"] as const;
export const DISPATCH_WINDOWS = ["morning", "afternoon", "full_day"] as const;
export const HARDWARE_REQUEST_TYPES = ["laptop_replacement", "monitor_bundle"] as const;
export const LAPTOP_REASONS = [
  "end_of_life",
  "performance_degradation",
  "physical_damage",
  "lost_or_stolen",
] as const;
export const MONITOR_REASONS = ["new_setup", "replacement"] as const;
export const MONITOR_SIZES = ["24_inch", "27_inch", "32_inch"] as const;
export const LAPTOP_OSES = ["macos", "windows"] as const;
export const LAPTOP_SIZES = ["13_inch", "14_inch", "16_inch"] as const;
export const ACCESS_LEVELS = ["read_only", "standard", "admin"] as const;
export const EQUIPMENT_TYPES = [
  "standing_desk_converter",
  "ergonomic_chair",
  "ergonomic_keyboard",
  "monitor_arm",
  "footrest",
] as const;
export const MEMBERSHIP_ACTIONS = ["add", "remove"] as const;
export const REMOVAL_SCOPES = ["full", "staged"] as const;
export const RECOVERY_METHODS = ["shipping_label", "drop_off"] as const;
export const TROUBLESHOOTING_CATEGORIES = [
  "login_issue",
  "network_connectivity",
  "hardware_malfunction",
] as const;
export const TRANSFER_REASONS = [
  "caller_requested",
  "policy_exception_needed",
  "unable_to_resolve",
  "complaint_escalation",
  "technical_issue",
] as const;
export const SECURITY_INCIDENT_TYPES = ["lost", "stolen", "suspected_compromise"] as const;
export const WAITLIST_RESOURCES = ["desk", "parking"] as const;
export const RESOLUTION_TYPES = ["resolved_via_troubleshooting", "transferred"] as const;
export const INTERACTION_FLOWS = [
  "login_issue",
  "network_connectivity",
  "hardware_malfunction",
] as const;
export const ROOM_EQUIPMENT = [
  "projector",
  "whiteboard",
  "video_conferencing",
  "display_screen",
  "speakerphone",
] as const;

export { choice };

const same = (type: string, ...fields: string[]) =>
  fields.map((f) => [f, [type, f] as const] as const);

/** `FIELD_ERROR_TYPES` and `FIELD_ERROR_HINTS` of the reference, in its order. */
export const ITSM_ERRORS: ErrorTables = {
  types: Object.fromEntries([
    ...same("invalid_employee_id_format", "employee_id"),
    ...same("invalid_phone_format", "phone_last_four", "new_phone_last_four"),
    ...same("invalid_otp_format", "otp_code"),
    ...same("invalid_manager_auth_code_format", "manager_auth_code"),
    ...same("invalid_ticket_number_format", "ticket_number"),
    ...same("invalid_asset_tag_format", "asset_tag", "current_asset_tag"),
    ...same("invalid_catalog_id_format", "catalog_id"),
    ...same("invalid_application_name", "application_name"),
    ...same("invalid_license_name", "license_name"),
    ...same("invalid_license_assignment_id_format", "license_assignment_id"),
    ...same("invalid_building_code_format", "building_code"),
    ...same("invalid_floor_code_format", "floor_code"),
    ...same("invalid_room_code_format", "room_code"),
    ...same("invalid_desk_code_format", "desk_code"),
    ...same("invalid_parking_zone_format", "zone_code"),
    ...same("invalid_parking_space_id_format", "parking_space_id"),
    ...same("invalid_department_code", "department_code"),
    ...same("invalid_role_code", "role_code", "new_role_code"),
    ...same("invalid_group_code_format", "group_code"),
    ...same("invalid_permission_template_id_format", "permission_template_id"),
    ...same("invalid_incident_category", "category"),
    ...same("invalid_urgency", "urgency"),
    ...same("invalid_issue_category", "issue_category"),
    ...same("invalid_request_type", "request_type"),
    ...same("invalid_justification", "justification"),
    ...same("invalid_monitor_size", "monitor_size"),
    ...same("invalid_laptop_os", "laptop_os"),
    ...same("invalid_laptop_size", "laptop_size"),
    ...same("invalid_access_level", "access_level"),
    ...same("invalid_equipment_type", "equipment_type"),
    ...same("invalid_membership_action", "action"),
    ...same("invalid_removal_scope", "removal_scope"),
    ...same("invalid_transfer_reason", "transfer_reason"),
    ...same("invalid_service_name", "service_name"),
    ...same("invalid_target_system", "target_system"),
    ...same("invalid_affected_system", "affected_system"),
    ...same("invalid_duration", "duration_days"),
    ...same("invalid_sla_tier", "sla_tier"),
    ...same("invalid_time_window", "time_window"),
    ...same("invalid_recovery_method", "recovery_method"),
    ...same("invalid_security_incident_type", "incident_type"),
    ...same("invalid_resource_type", "resource_type"),
    ...same("invalid_diagnostic_ref_code_format", "diagnostic_ref_code"),
    ...same(
      "invalid_date_format",
      "date",
      "start_date",
      "effective_date",
      "last_working_day",
      "review_date",
      "preferred_date",
    ),
    ...same("invalid_time_format", "start_time", "end_time"),
    ...same("invalid_request_id_format", "request_id"),
    ...same("invalid_case_id_format", "case_id"),
    ...same("invalid_security_case_id_format", "security_case_id"),
    ...same(
      "invalid_employee_id_format",
      "new_hire_employee_id",
      "manager_employee_id",
      "departing_employee_id",
      "approver_employee_id",
      "escalate_to_employee_id",
    ),
    ...same("invalid_building_code_format", "delivery_building"),
    ...same("invalid_floor_code_format", "delivery_floor"),
  ]),
  hints: {
    monitor_size:
      "Required for monitor_bundle (one of 24_inch/27_inch/32_inch). OMIT this field entirely (do not pass empty string) for laptop_replacement.",
    laptop_os:
      "Required for laptop_replacement (macos or windows). OMIT this field entirely for monitor_bundle.",
    laptop_size:
      "Required for laptop_replacement (13_inch, 14_inch, or 16_inch). OMIT this field entirely for monitor_bundle.",
    current_asset_tag:
      "Required for laptop_replacement unless justification is lost_or_stolen. Required for monitor_bundle replacement; OMIT for monitor_bundle new_setup.",
    duration_days:
      "OMIT duration_days for a permanent license. Valid values for temporary licenses are exactly 30, 60, or 90.",
  },
};
