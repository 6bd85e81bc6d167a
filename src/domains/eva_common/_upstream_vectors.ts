/**
 * Test vectors computed once from the reference's own code (ServiceNow/eva commit
 * 997ae97: src/eva/assistant/tools/{itsm,medical_hr}_tools.py and _params.py under
 * pydantic 2, src/eva/utils/hash_utils.py): synthetic worlds, the calls made on them
 * with every result the reference returned and its get_dict_hash of the final
 * world, and arguments its models reject with the error each returns. Made by
 * running each call through the tool function with `params`, `db` and a per-tool
 * `call_index`, as its ToolExecutor does, and writing the results as JSON.
 *
 * @module
 */

export const UPSTREAM_RUNS = {
  "eva_itsm": {
    "world": {
      "_current_date": "2026-03-10",
      "employees": {
        "EMP000001": {
          "employee_id": "EMP000001",
          "first_name": "Rémi",
          "last_name": "Lefèvre",
          "phone_last_four": "1234",
          "department_code": "ENG",
          "role_code": "SWE",
          "cost_center_code": "CC-ENG",
          "manager_auth_code": "K4M2P9",
          "is_manager": true,
          "direct_reports": [
            "EMP000002",
          ],
          "otp_code": "123456",
          "account_status": {
            "active_directory": {
              "locked": true,
              "lock_reason": "failed_attempts",
            },
            "vpn_gateway": {
              "locked": true,
              "lock_reason": "security_investigation",
            },
          },
          "hardware_entitlements": {
            "laptop_replacement": {
              "current_asset_tag": "AST-LPT-000001",
              "pending_request": false,
            },
          },
          "software_licenses": [
            {
              "license_assignment_id": "LASGN-000001",
              "expiration_date": "2026-03-25",
              "status": "active",
            },
          ],
          "group_memberships": [],
          "last_desk_assignment_date": "2026-01-20",
        },
        "EMP000002": {
          "employee_id": "EMP000002",
          "first_name": "Zoë",
          "last_name": "Ñúñez",
          "employment_status": "pending_start",
          "department_code": "ENG",
          "role_code": "SWE",
          "system_accounts": [],
        },
        "EMP000003": {
          "employee_id": "EMP000003",
          "first_name": "Ana",
          "last_name": "Li",
          "email": "zoë.ñúñez@company.com",
        },
      },
      "assets": {
        "AST-LPT-000001": {
          "asset_tag": "AST-LPT-000001",
          "asset_type": "laptop",
          "assigned_employee_id": "EMP000001",
          "model": "X1",
          "os": "windows",
          "size": "14-inch",
          "purchase_date": "2022-03-11",
          "status": "active",
        },
      },
      "cost_centers": {
        "CC-ENG": {
          "department_code": "ENG",
          "has_budget": true,
          "remaining_budget_usd": 1500.5,
        },
      },
      "software_catalog": {
        "applications": {
          "APP-1001": {
            "name": "Slack",
            "name_aliases": [
              "slack enterprise",
            ],
            "available_access_levels": [
              "standard",
            ],
            "requires_manager_approval": true,
          },
        },
        "licenses": {},
      },
      "access_groups": {
        "GRP-ENGCOR": {
          "name": "Engineering Core",
          "eligible_departments": [
            "ENG",
          ],
          "eligible_roles": [],
          "requires_approval": false,
        },
        "GRP-FIN": {
          "name": "Finance",
          "eligible_departments": [
            "FIN",
          ],
          "eligible_roles": [],
          "requires_approval": false,
        },
      },
      "facilities": {
        "buildings": {
          "BLD3": {
            "name": "Downtown Engineering Center",
            "name_aliases": [
              "downtown",
              "centre-ville",
            ],
          },
        },
        "desks": {
          "BLD3-FL2-D201": {
            "building_code": "BLD3",
            "floor_code": "FL2",
            "status": "available",
            "zone": "A",
          },
        },
        "conference_rooms": {},
        "parking": {},
        "zones": {},
      },
      "troubleshooting_guides": {
        "login_issue": {
          "steps": [
            "a",
            "b",
          ],
        },
      },
      "tickets": {},
      "requests": {},
      "session": {},
    },
    "calls": [
      {
        "tool": "get_employee_record",
        "arguments": {
          "employee_id": "EMP000001",
        },
        "result": {
          "status": "error",
          "error_type": "authentication_required",
          "message": "Authentication (employee_auth) required",
        },
      },
      {
        "tool": "verify_employee_auth",
        "arguments": {
          "employee_id": "EMP000001",
          "phone_last_four": "9999",
        },
        "result": {
          "status": "error",
          "error_type": "authentication_failed",
          "message": "Phone number does not match",
        },
      },
      {
        "tool": "verify_employee_auth",
        "arguments": {
          "employee_id": "EMP000001",
          "phone_last_four": "1234",
        },
        "result": {
          "status": "success",
          "authenticated": true,
          "employee_id": "EMP000001",
          "first_name": "Rémi",
          "last_name": "Lefèvre",
          "message": "Employee EMP000001 authenticated",
        },
      },
      {
        "tool": "attempt_account_unlock",
        "arguments": {
          "employee_id": "EMP000001",
          "target_system": "vpn_gateway",
        },
        "result": {
          "status": "error",
          "error_type": "cannot_unlock_security_hold",
          "lock_reason": "security_investigation",
          "message":
            "Account on vpn_gateway is under security investigation. This cannot be unlocked from the service desk. Offer to transfer the caller to a live agent; security will contact them separately.",
        },
      },
      {
        "tool": "attempt_account_unlock",
        "arguments": {
          "employee_id": "EMP000001",
          "target_system": "active_directory",
        },
        "result": {
          "status": "success",
          "employee_id": "EMP000001",
          "target_system": "active_directory",
          "resolved": true,
          "message": "Account unlocked on active_directory",
        },
      },
      {
        "tool": "create_incident_ticket",
        "arguments": {
          "employee_id": "EMP000001",
          "category": "login_issue",
          "urgency": "high",
          "affected_system": "active_directory",
          "troubleshooting_completed": "yes",
        },
        "result": {
          "status": "success",
          "ticket_number": "INC5cf3d4f2651e",
          "category": "login_issue",
          "urgency": "high",
          "message": "Ticket created: INC5cf3d4f2651e",
        },
      },
      {
        "tool": "assign_sla_tier",
        "arguments": {
          "ticket_number": "INC000000000000",
          "sla_tier": "tier_2",
        },
        "result": {
          "status": "error",
          "error_type": "not_found",
          "message": "Ticket INC000000000000 not found",
        },
      },
      {
        "tool": "check_hardware_entitlement",
        "arguments": {
          "employee_id": "EMP000001",
          "request_type": "laptop_replacement",
        },
        "result": {
          "status": "success",
          "eligible": true,
          "employee_id": "EMP000001",
          "request_type": "laptop_replacement",
          "current_asset_tag": "AST-LPT-000001",
          "device_age_months": 47,
          "current_asset": {
            "asset_tag": "AST-LPT-000001",
            "os": "windows",
            "size": "14-inch",
            "model": "X1",
          },
          "message": "Eligible",
        },
      },
      {
        "tool": "submit_hardware_request",
        "arguments": {
          "employee_id": "EMP000001",
          "request_type": "laptop_replacement",
          "justification": "end_of_life",
          "current_asset_tag": "AST-LPT-000001",
          "laptop_os": "windows",
          "laptop_size": "14_inch",
          "monitor_size": "27_inch",
          "delivery_building": "Centre-Ville!",
          "delivery_floor": "FL2",
        },
        "result": {
          "status": "success",
          "request_id": "REQ-HW-8e48bd5b2719",
          "request_type": "laptop_replacement",
          "message": "Submitted: REQ-HW-8e48bd5b2719",
        },
      },
      {
        "tool": "verify_cost_center_budget",
        "arguments": {
          "employee_id": "EMP000001",
        },
        "result": {
          "status": "success",
          "cost_center_code": "CC-ENG",
          "department_code": "ENG",
          "has_budget": true,
          "remaining_budget_usd": 1500.5,
          "message": "Budget verified",
        },
      },
      {
        "tool": "submit_license_renewal",
        "arguments": {
          "employee_id": "EMP000001",
          "license_assignment_id": "LASGN-000001",
        },
        "result": {
          "status": "success",
          "request_id": "REQ-SW-ff136ae48027",
          "new_expiration_date": "2027-03-25",
          "message": "Renewed. Expires 2027-03-25. ID: REQ-SW-ff136ae48027",
        },
      },
      {
        "tool": "submit_license_request",
        "arguments": {
          "employee_id": "EMP000001",
          "catalog_id": "LIC-2001",
          "duration_days": "60",
        },
        "result": {
          "status": "success",
          "request_id": "REQ-SW-a13f48199c00",
          "catalog_id": "LIC-2001",
          "license_type": "temporary",
          "duration_days": 60,
          "expiration_date": "2026-05-09",
          "message": "Temp license: REQ-SW-a13f48199c00. Expires 2026-05-09.",
        },
      },
      {
        "tool": "submit_license_request",
        "arguments": {
          "employee_id": "EMP000001",
          "catalog_id": "LIC-2001",
          "duration_days": "none",
        },
        "result": {
          "status": "success",
          "request_id": "REQ-SW-883fc1c97db3",
          "catalog_id": "LIC-2001",
          "license_type": "permanent",
          "message": "License request: REQ-SW-883fc1c97db3",
        },
      },
      {
        "tool": "get_application_details",
        "arguments": {
          "application_name": "SLACK-Enterprise",
        },
        "result": {
          "status": "error",
          "error_type": "not_found",
          "message":
            "No application matching 'SLACK-Enterprise'. Please confirm the exact product name.",
        },
      },
      {
        "tool": "submit_access_request",
        "arguments": {
          "employee_id": "EMP000001",
          "catalog_id": "APP-1001",
          "access_level": "standard",
        },
        "result": {
          "status": "error",
          "error_type": "authentication_required",
          "message": "Authentication (otp_auth) required",
        },
      },
      {
        "tool": "submit_desk_assignment",
        "arguments": {
          "employee_id": "EMP000001",
          "desk_code": "BLD3-FL2-D201",
        },
        "result": {
          "status": "error",
          "error_type": "too_soon",
          "days_since_last": 49,
          "cooldown_days": 90,
          "last_assignment_date": "2026-01-20",
          "message":
            "Desk reassignment cooldown: last assignment was 49 days ago; must wait at least 90 days. Eligible again after 2026-04-20.",
        },
      },
      {
        "tool": "check_desk_availability",
        "arguments": {
          "building_code": "Uptown",
          "floor_code": "FL2",
        },
        "result": {
          "status": "error",
          "error_type": "name_not_found",
          "message":
            "Building 'Uptown' not recognized. Provide a code or a known name. Known names: Downtown Engineering Center.",
        },
      },
      {
        "tool": "submit_mfa_reset",
        "arguments": {
          "employee_id": "EMP000001",
          "new_phone_last_four": "4321",
        },
        "result": {
          "status": "error",
          "error_type": "in_person_required",
          "security_case_id": "SEC-6a36b93847e5",
          "message":
            "Phone-of-record changes cannot be made over the phone. Please visit the IT security office in person with a government-issued ID. A security case has been opened to track this request.",
        },
      },
      {
        "tool": "verify_manager_auth",
        "arguments": {
          "employee_id": "EMP000001",
          "phone_last_four": "1234",
          "manager_auth_code": "K4M2P9",
        },
        "result": {
          "status": "success",
          "confirmed": true,
          "employee_id": "EMP000001",
          "first_name": "Rémi",
          "last_name": "Lefèvre",
          "department_code": "ENG",
          "direct_reports": [
            "EMP000002",
          ],
          "message": "Standard + manager auth confirmed",
        },
      },
      {
        "tool": "initiate_otp_auth",
        "arguments": {
          "employee_id": "EMP000001",
        },
        "result": {
          "status": "success",
          "phone_last_four": "1234",
          "message": "OTP sent to ***1234",
        },
      },
      {
        "tool": "verify_otp_auth",
        "arguments": {
          "employee_id": "EMP000001",
          "otp_code": "123456",
        },
        "result": {
          "status": "success",
          "authenticated": true,
          "employee_id": "EMP000001",
          "message": "OTP verified",
        },
      },
      {
        "tool": "submit_group_membership_change",
        "arguments": {
          "employee_id": "EMP000001",
          "group_code": "GRP-FIN",
          "action": "add",
        },
        "result": {
          "status": "error",
          "error_type": "group_not_eligible",
          "message":
            "Employee EMP000001 (department ENG, role SWE) is not eligible for GRP-FIN. Eligible departments: ['FIN']; eligible roles: any.",
        },
      },
      {
        "tool": "submit_group_membership_change",
        "arguments": {
          "employee_id": "EMP000001",
          "group_code": "GRP-ENGCOR",
          "action": "add",
        },
        "result": {
          "status": "success",
          "case_id": "CASE-ACCT-48ee971dba6c",
          "action": "add",
          "group_code": "GRP-ENGCOR",
          "requires_approval": false,
          "message": "Added. Case: CASE-ACCT-48ee971dba6c",
        },
      },
      {
        "tool": "provision_new_account",
        "arguments": {
          "manager_employee_id": "EMP000001",
          "new_hire_employee_id": "EMP000002",
          "department_code": "ENG",
          "role_code": "SWE",
          "start_date": "2026-04-01",
          "access_groups": [
            "GRP-ENGCOR",
          ],
        },
        "result": {
          "status": "success",
          "case_id": "CASE-ACCT-38d85566fca0",
          "new_hire_employee_id": "EMP000002",
          "email": "zoë.ñúñez2@company.com",
          "access_groups": [
            "GRP-ENGCOR",
          ],
          "message": "Provisioned. Case: CASE-ACCT-38d85566fca0. Email: zoë.ñúñez2@company.com",
        },
      },
      {
        "tool": "mark_resolved",
        "arguments": {
          "employee_id": "EMP000001",
          "flow_id": "login_issue",
          "resolution_type": "resolved_via_troubleshooting",
        },
        "result": {
          "status": "success",
          "interaction_id": "INT-000001",
          "flow_id": "login_issue",
          "resolution_type": "resolved_via_troubleshooting",
          "message": "Interaction logged: INT-000001",
        },
      },
      {
        "tool": "transfer_to_agent",
        "arguments": {
          "employee_id": "EMP000001",
          "transfer_reason": "caller_requested",
          "issue_summary": "Caller wants a person",
        },
        "result": {
          "status": "success",
          "transfer_id": "TRF-EMP000001-001",
          "employee_id": "EMP000001",
          "transfer_reason": "caller_requested",
          "estimated_wait": "2-3 minutes",
          "message": "Transferring",
        },
      },
      {
        "tool": "transfer_to_agent",
        "arguments": {
          "employee_id": "EMP000001",
          "transfer_reason": "caller_requested",
          "issue_summary": "Caller wants a person again",
        },
        "result": {
          "status": "success",
          "transfer_id": "TRF-EMP000001-002",
          "employee_id": "EMP000001",
          "transfer_reason": "caller_requested",
          "estimated_wait": "2-3 minutes",
          "message": "Transferring",
        },
      },
    ],
    "final_sha256": "4d4ad6a253390dcdaf704493b09736b2d97a7956e157b9955b058b79d7f26330",
  },
  "eva_medical_hr": {
    "world": {
      "_current_date": "2026-05-04",
      "employees": {
        "EMP000010": {
          "employee_id": "EMP000010",
          "first_name": "Léa",
          "last_name": "Dubois",
          "date_of_birth": "1990-02-03",
          "department_code": "CARDIOLOGY",
          "schedule_type": "standard",
          "pto_balances": {
            "pto": 3.0,
            "sick": 5.0,
          },
          "pto_requests": [],
          "certifications": [
            "BLS",
          ],
          "phone_last_four": "1111",
          "otp_code": "654321",
        },
        "EMP000011": {
          "employee_id": "EMP000011",
          "first_name": "Kai",
          "last_name": "Ito",
          "certifications": [
            "BLS",
            "ACLS",
          ],
        },
      },
      "providers": {
        "1234567890": {
          "npi": "1234567890",
          "employee_id": "EMP000010",
          "facility_code": "MGH-04B",
          "pin": "7291",
          "clearance_code": "CLR-OCC-000010",
          "licenses": {
            "MA-MD-00123456": {
              "expiration_date": "2026-06-01",
            },
          },
          "privileges": {
            "privilege_list": [
              {
                "code": "PRV-CARD-001",
                "status": "suspended",
              },
              {
                "code": "PRV-CARD-002",
                "status": "suspended",
              },
            ],
          },
        },
      },
      "shifts": {
        "SHF-20260510-0700": {
          "employee_id": "EMP000010",
          "date": "2026-05-10",
          "unit_code": "4B-ICU",
          "status": "scheduled",
        },
      },
      "unit_cert_requirements": {
        "4B-ICU": [
          "BLS",
          "ACLS",
        ],
      },
      "appointment_availability": {
        "competency_review": {
          "CARDIOLOGY": {
            "2026-05-06": [
              "09:00",
              "10:00",
            ],
            "2026-05-08": [
              "11:00",
            ],
          },
        },
      },
      "org_holidays": [
        "2026-05-25",
      ],
      "department_blackout_dates": {
        "CARDIOLOGY": [
          "2026-05-27",
        ],
      },
      "session": {},
    },
    "calls": [
      {
        "tool": "verify_employee_auth",
        "arguments": {
          "employee_id": "EMP000010",
          "date_of_birth": "1990-02-03",
        },
        "result": {
          "status": "success",
          "authenticated": true,
          "employee_id": "EMP000010",
          "first_name": "Léa",
          "last_name": "Dubois",
          "message": "Employee EMP000010 authenticated successfully",
        },
      },
      {
        "tool": "check_swap_eligibility",
        "arguments": {
          "employee_id": "EMP000010",
          "shift_id": "SHF-20260510-0700",
        },
        "result": {
          "status": "success",
          "eligible": true,
          "shift_date": "2026-05-10",
          "unit_code": "4B-ICU",
          "required_cert_codes": [
            "ACLS",
            "BLS",
          ],
          "message": "Shift is eligible for swap",
        },
      },
      {
        "tool": "verify_colleague_certifications",
        "arguments": {
          "colleague_employee_id": "EMP000010",
          "unit_code": "4B-ICU",
        },
        "result": {
          "status": "error",
          "error_type": "certification_missing",
          "message": "Colleague EMP000010 is missing: ['ACLS']",
          "missing_certs": [
            "ACLS",
          ],
        },
      },
      {
        "tool": "verify_colleague_certifications",
        "arguments": {
          "colleague_employee_id": "EMP000011",
          "unit_code": "4B-ICU",
        },
        "result": {
          "status": "success",
          "colleague_employee_id": "EMP000011",
          "unit_code": "4B-ICU",
          "certifications_verified": [
            "ACLS",
            "BLS",
          ],
          "message": "All required certifications verified",
        },
      },
      {
        "tool": "confirm_shift_swap",
        "arguments": {
          "employee_id": "EMP000010",
          "shift_id": "SHF-20260510-0700",
          "colleague_employee_id": "EMP000011",
          "unit_code": "4B-ICU",
        },
        "result": {
          "status": "success",
          "shift_id": "SHF-20260510-0700",
          "original_employee_id": "EMP000010",
          "new_employee_id": "EMP000011",
          "unit_code": "4B-ICU",
          "case_id": "CASE-SWP-000010",
          "message": "Shift swap confirmed. Case ID: CASE-SWP-000010",
        },
      },
      {
        "tool": "notify_department_manager",
        "arguments": {
          "employee_id": "EMP000010",
          "case_id": "CASE-SWP-000010",
          "notification_type": "shift_swap_confirmed",
        },
        "result": {
          "status": "success",
          "employee_id": "EMP000010",
          "case_id": "CASE-SWP-000010",
          "notification_type": "shift_swap_confirmed",
          "message": "Department manager notified: shift_swap_confirmed",
        },
      },
      {
        "tool": "notify_department_manager",
        "arguments": {
          "employee_id": "EMP000010",
          "case_id": "CASE-SWP-000010",
          "notification_type": "shift_swap_confirmed",
        },
        "result": {
          "status": "success",
          "employee_id": "EMP000010",
          "case_id": "CASE-SWP-000010",
          "notification_type": "shift_swap_confirmed",
          "message": "Department manager notified: shift_swap_confirmed",
        },
      },
      {
        "tool": "check_pto_eligibility",
        "arguments": {
          "employee_id": "EMP000010",
          "pto_type": "pto",
          "start_date": "2026-05-22",
          "end_date": "2026-05-28",
        },
        "result": {
          "status": "error",
          "error_type": "insufficient_pto_balance",
          "message": "Insufficient pto balance: 4.0 days required but only 3.0 available",
          "pto_days_required": 4.0,
          "current_balance": 3.0,
        },
      },
      {
        "tool": "check_pto_eligibility",
        "arguments": {
          "employee_id": "EMP000010",
          "pto_type": "pto",
          "start_date": "2026-05-22",
          "end_date": "2026-05-26",
        },
        "result": {
          "status": "success",
          "eligible": true,
          "employee_id": "EMP000010",
          "schedule_type": "standard",
          "pto_type": "pto",
          "pto_days_required": 2.0,
          "working_days_in_range": [
            "2026-05-22",
            "2026-05-26",
          ],
          "current_balance": 3.0,
          "remaining_after": 1.0,
          "message": "Eligible. 2.0 pto day(s) required, 1.0 remaining after.",
        },
      },
      {
        "tool": "submit_pto_request",
        "arguments": {
          "employee_id": "EMP000010",
          "pto_type": "pto",
          "start_date": "2026-05-22",
          "end_date": "2026-05-26",
        },
        "result": {
          "status": "success",
          "employee_id": "EMP000010",
          "case_id": "CASE-PTO-000010",
          "pto_type": "pto",
          "start_date": "2026-05-22",
          "end_date": "2026-05-26",
          "pto_days_deducted": 2.0,
          "working_days": [
            "2026-05-22",
            "2026-05-26",
          ],
          "remaining_balance": 1.0,
          "message": "PTO request submitted. 2.0 pto day(s) deducted. Case ID: CASE-PTO-000010",
        },
      },
      {
        "tool": "check_pto_eligibility",
        "arguments": {
          "employee_id": "EMP000010",
          "pto_type": "sick",
          "start_date": "2026-05-26",
          "end_date": "2026-05-26",
        },
        "result": {
          "status": "error",
          "error_type": "pto_overlap",
          "message":
            "Requested dates overlap with existing PTO request 2026-05-22 to 2026-05-26 (case CASE-PTO-000010)",
          "overlapping_case_id": "CASE-PTO-000010",
        },
      },
      {
        "tool": "verify_provider_auth",
        "arguments": {
          "npi": "1234567890",
          "facility_code": "MGH-04B",
          "pin": "7291",
        },
        "result": {
          "status": "success",
          "authenticated": true,
          "npi": "1234567890",
          "first_name": null,
          "last_name": null,
          "employee_id": "EMP000010",
          "message": "Provider NPI 1234567890 authenticated successfully",
        },
      },
      {
        "tool": "check_extension_eligibility",
        "arguments": {
          "npi": "1234567890",
          "state_license_number": "MA-MD-00123456",
        },
        "result": {
          "status": "success",
          "eligible": true,
          "license_expiration_date": "2026-06-01",
          "message": "License is eligible for extension",
        },
      },
      {
        "tool": "submit_license_extension",
        "arguments": {
          "npi": "1234567890",
          "state_license_number": "MA-MD-00123456",
          "extension_type": "provisional",
          "extension_days": "30",
          "supervising_physician_npi": "none",
        },
        "result": {
          "status": "error",
          "error_type": "invalid_extension_days",
          "message":
            "Invalid extension_days '30': must be Extension duration in days: exactly 30, 60, or 90",
        },
      },
      {
        "tool": "initiate_otp_auth",
        "arguments": {
          "employee_id": "EMP000010",
        },
        "result": {
          "status": "success",
          "phone_last_four": "1111",
          "message": "OTP sent to number ending in 1111. Ask the caller to read the code.",
        },
      },
      {
        "tool": "verify_otp_auth",
        "arguments": {
          "employee_id": "EMP000010",
          "otp_code": "654321",
        },
        "result": {
          "status": "success",
          "authenticated": true,
          "employee_id": "EMP000010",
          "first_name": "Léa",
          "message": "OTP verified. Employee EMP000010 authenticated successfully.",
        },
      },
      {
        "tool": "schedule_competency_review",
        "arguments": {
          "npi": "1234567890",
          "department_code": "CARDIOLOGY",
          "appointment_datetime": "2026-05-06 11:00",
        },
        "result": {
          "status": "error",
          "error_type": "slot_not_available",
          "message":
            "Time slot 11:00 on 2026-05-06 is not available for competency_review in CARDIOLOGY. Available slots: ['09:00', '10:00']",
        },
      },
      {
        "tool": "schedule_competency_review",
        "arguments": {
          "npi": "1234567890",
          "department_code": "CARDIOLOGY",
          "appointment_datetime": "2026-05-06 10:00",
        },
        "result": {
          "status": "success",
          "npi": "1234567890",
          "appointment_id": "CASE-CMP-000010",
          "department_code": "CARDIOLOGY",
          "appointment_datetime": "2026-05-06 10:00",
          "message":
            "Competency review scheduled for 2026-05-06 10:00. Appointment ID: CASE-CMP-000010",
        },
      },
      {
        "tool": "check_appointment_availability",
        "arguments": {
          "department_code": "CARDIOLOGY",
          "appointment_type": "competency_review",
          "preferred_date": "2026-05-07",
        },
        "result": {
          "status": "success",
          "available_slots": [],
          "date": "2026-05-07",
          "alternative_dates": [
            {
              "date": "2026-05-08",
              "available_slots": [
                "11:00",
              ],
            },
          ],
          "message": "No availability on 2026-05-07 for competency_review in CARDIOLOGY",
        },
      },
      {
        "tool": "reactivate_privileges",
        "arguments": {
          "npi": "1234567890",
          "privilege_codes": [
            "PRV-CARD-001",
            "PRV-CARD-009",
          ],
          "clearance_code": "CLR-OCC-000010",
          "leave_type_on_record": "medical_leave",
        },
        "result": {
          "status": "error",
          "error_type": "privilege_not_found",
          "message": "Privilege code(s) not found: ['PRV-CARD-009']",
        },
      },
      {
        "tool": "reactivate_privileges",
        "arguments": {
          "npi": "1234567890",
          "privilege_codes": [
            "PRV-CARD-002",
          ],
          "clearance_code": "CLR-OCC-000010",
          "leave_type_on_record": "medical_leave",
        },
        "result": {
          "status": "success",
          "npi": "1234567890",
          "activated_privileges": [
            "PRV-CARD-002",
          ],
          "leave_type_on_record": "medical_leave",
          "case_id": "CASE-PRV-000010",
          "message": "Privileges reactivated. Case ID: CASE-PRV-000010",
        },
      },
      {
        "tool": "register_oncall_availability",
        "arguments": {
          "employee_id": "EMP000010",
          "unit_code": "4B-ICU",
          "availability_start_date": "2026-06-01",
          "availability_end_date": "2026-06-30",
          "oncall_tier": "primary",
          "blackout_dates": [
            "2026-07-04",
          ],
        },
        "result": {
          "status": "error",
          "error_type": "invalid_blackout_date",
          "message":
            "Blackout date 2026-07-04 is outside the availability window (2026-06-01 – 2026-06-30)",
        },
      },
      {
        "tool": "submit_payroll_correction",
        "arguments": {
          "employee_id": "EMP000010",
          "shift_id": "SHF-20260510-0700",
          "correction_type": "overtime_hours",
          "corrected_hours": "12.5",
        },
        "result": {
          "status": "error",
          "error_type": "pay_period_not_set",
          "message": "No pay period end date found for shift SHF-20260510-0700",
        },
      },
    ],
    "final_sha256": "bb31d18f8436d74bfe607c6e6f46c0f4ca99dbeb02f4b2f5ee19388fe2da78ac",
  },
} as const;

export const UPSTREAM_VALIDATION = [
  {
    "domain": "eva_itsm",
    "tool": "verify_employee_auth",
    "arguments": {
      "employee_id": "E1",
      "phone_last_four": "1234",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_employee_id_format",
      "message": "Invalid employee_id 'E1': must be EMP followed by 6 digits (e.g. EMP048271)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "verify_employee_auth",
    "arguments": {
      "phone_last_four": "1234",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_employee_id_format",
      "message":
        "Invalid employee_id '{'phone_last_four': '1234'}': must be EMP followed by 6 digits (e.g. EMP048271)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "verify_employee_auth",
    "arguments": {
      "employee_id": 48271,
      "phone_last_four": "12",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_employee_id_format",
      "message": "Invalid employee_id '48271': must be EMP followed by 6 digits (e.g. EMP048271)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "create_incident_ticket",
    "arguments": {
      "employee_id": "EMP000001",
      "category": "printer",
      "urgency": "high",
      "affected_system": "vpn",
      "troubleshooting_completed": true,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_incident_category",
      "message":
        "Invalid category 'printer': Input should be 'login_issue', 'service_outage', 'hardware_malfunction' or 'network_connectivity'",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "create_incident_ticket",
    "arguments": {
      "employee_id": "EMP000001",
      "category": "login_issue",
      "urgency": "high",
      "affected_system": "vpn",
      "troubleshooting_completed": "maybe",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'troubleshooting_completed': Input should be a valid boolean, unable to interpret input",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "create_incident_ticket",
    "arguments": {
      "employee_id": "EMP000001",
      "category": "login_issue",
      "urgency": "high",
      "affected_system": "vpn",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'troubleshooting_completed': Field required",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "assign_sla_tier",
    "arguments": {
      "ticket_number": "INC0048271",
      "sla_tier": "tier_1",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_ticket_number_format",
      "message":
        "Invalid ticket_number 'INC0048271': must be INC followed by 12 hex chars (content-hash) (e.g. INCfa5e5b2062da)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_hardware_request",
    "arguments": {
      "employee_id": "EMP000001",
      "request_type": "laptop_replacement",
      "justification": "end_of_life",
      "laptop_os": "windows",
      "delivery_building": "BLD1",
      "delivery_floor": "FL2",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'parameter': Value error, laptop_size is required when request_type is laptop_replacement. Add 'laptop_size' to your tool call with one of: 13_inch, 14_inch, 16_inch. Required for laptop_replacement (13_inch, 14_inch, or 16_inch). OMIT this field entirely for monitor_bundle.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_hardware_request",
    "arguments": {
      "employee_id": "EMP000001",
      "request_type": "laptop_replacement",
      "justification": "broken",
      "laptop_os": "windows",
      "laptop_size": "14_inch",
      "delivery_building": "BLD1",
      "delivery_floor": "FL2",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'parameter': Value error, justification 'broken' invalid for laptop_replacement; must be one of ['end_of_life', 'performance_degradation', 'physical_damage', 'lost_or_stolen']",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_hardware_request",
    "arguments": {
      "employee_id": "EMP000001",
      "request_type": "monitor_bundle",
      "justification": "new_setup",
      "monitor_size": "",
      "delivery_building": "BLD1",
      "delivery_floor": "FL2",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'parameter': Value error, monitor_size is required when request_type is monitor_bundle. Add 'monitor_size' to your tool call with one of: 24_inch, 27_inch, 32_inch. Required for monitor_bundle (one of 24_inch/27_inch/32_inch). OMIT this field entirely (do not pass empty string) for laptop_replacement.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_hardware_request",
    "arguments": {
      "employee_id": "EMP000001",
      "request_type": "monitor_bundle",
      "justification": "new_setup",
      "monitor_size": "30_inch",
      "delivery_building": "BLD1",
      "delivery_floor": "FL2",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_monitor_size",
      "message":
        "Invalid monitor_size '30_inch': must be Monitor size. Required only when request_type is monitor_bundle. **Omit this field** for laptop_replacement and other request types.. Required for monitor_bundle (one of 24_inch/27_inch/32_inch). OMIT this field entirely (do not pass empty string) for laptop_replacement.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_hardware_request",
    "arguments": {
      "employee_id": "EMP000001",
      "request_type": "laptop_replacement",
      "justification": "end_of_life",
      "laptop_os": "linux",
      "laptop_size": "14_inch",
      "delivery_building": "BLD1",
      "delivery_floor": "FL2",
      "current_asset_tag": "N/A",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_laptop_os",
      "message":
        "Invalid laptop_os 'linux': must be Operating system. Required only when request_type is laptop_replacement. **Omit this field** for monitor_bundle and other request types.. Required for laptop_replacement (macos or windows). OMIT this field entirely for monitor_bundle.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_license_request",
    "arguments": {
      "employee_id": "EMP000001",
      "catalog_id": "LIC-2001",
      "duration_days": 45,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_duration",
      "message":
        "Invalid duration_days '45': must be Trial duration in days. Use 30, 60, or 90 for trial licenses. **Omit this field** (do not include the key) for permanent licenses — do not pass null, 'null', or empty string.. OMIT duration_days for a permanent license. Valid values for temporary licenses are exactly 30, 60, or 90.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_license_request",
    "arguments": {
      "employee_id": "EMP000001",
      "catalog_id": "LIC-2001",
      "duration_days": "forever",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_duration",
      "message":
        "Invalid duration_days 'forever': must be Trial duration in days. Use 30, 60, or 90 for trial licenses. **Omit this field** (do not include the key) for permanent licenses — do not pass null, 'null', or empty string.. OMIT duration_days for a permanent license. Valid values for temporary licenses are exactly 30, 60, or 90.",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_room_availability",
    "arguments": {
      "building_code": "BLD1",
      "date": "2026-05-01",
      "start_time": "9:00",
      "end_time": "10:00",
      "min_capacity": 4,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_time_format",
      "message": "Invalid start_time '9:00': must be HH:MM (e.g. 09:00)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_room_availability",
    "arguments": {
      "building_code": "BLD1",
      "date": "2026-05-01",
      "start_time": "09:00",
      "end_time": "10:00",
      "min_capacity": 0,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'min_capacity': Input should be greater than 0",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_room_availability",
    "arguments": {
      "building_code": "BLD1",
      "date": "2026-05-01",
      "start_time": "09:00",
      "end_time": "10:00",
      "min_capacity": "four",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'min_capacity': Input should be a valid integer, unable to parse string as an integer",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_room_availability",
    "arguments": {
      "building_code": "BLD1",
      "date": "2026-05-01",
      "start_time": "09:00",
      "end_time": "10:00",
      "min_capacity": 4,
      "equipment_required": [
        "projector",
        "laser",
      ],
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid 'equipment_required': Input should be 'projector', 'whiteboard', 'video_conferencing', 'display_screen' or 'speakerphone'",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_room_availability",
    "arguments": {
      "building_code": "",
      "date": "2026-05-01",
      "start_time": "09:00",
      "end_time": "10:00",
      "min_capacity": 4,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_building_code_format",
      "message":
        "Invalid building_code '': must be Building code (e.g. 'BLD3') OR building name/alias (e.g. 'Headquarters', 'HQ', 'Downtown'). Tools resolve names to canonical code via facilities.buildings aliases; unknown names return `name_not_found`. (e.g. BLD3, Downtown)",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "check_parking_availability",
    "arguments": {
      "zone_code": "",
    },
    "result": {
      "status": "error",
      "error_type": "authentication_required",
      "message": "Authentication (employee_auth) required",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_waitlist",
    "arguments": {
      "employee_id": "EMP000001",
      "resource_type": "locker",
      "zone_or_building": "BLD1",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_resource_type",
      "message": "Invalid resource_type 'locker': Input should be 'desk' or 'parking'",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "provision_new_account",
    "arguments": {
      "manager_employee_id": "EMP000001",
      "new_hire_employee_id": "EMP000002",
      "department_code": "ENG",
      "role_code": "SWE",
      "start_date": "2026-05-01",
      "access_groups": [
        "GRP-ENG",
        "eng",
      ],
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'access_groups': String should match pattern '^GRP-[A-Z]{2,8}$'",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "transfer_to_agent",
    "arguments": {
      "employee_id": "EMP000001",
      "transfer_reason": "caller_requested",
      "issue_summary": "short",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'issue_summary': String should have at least 10 characters",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "mark_resolved",
    "arguments": {
      "employee_id": "EMP000001",
      "flow_id": "login_issue",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'resolution_type': Field required",
    },
  },
  {
    "domain": "eva_itsm",
    "tool": "submit_room_booking",
    "arguments": {
      "employee_id": "EMP000001",
      "room_code": "BLD1-FL2-RM201",
      "date": "2026-05-01",
      "start_time": "09:00",
      "end_time": "10:00",
      "attendee_count": 51,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message": "Invalid 'attendee_count': Input should be less than or equal to 50",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "verify_employee_auth",
    "arguments": {
      "employee_id": "EMP1",
      "date_of_birth": "1990-01-01",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_employee_id_format",
      "message": "Invalid employee_id 'EMP1': must be EMP followed by 6 digits (e.g. EMP048271)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "verify_provider_auth",
    "arguments": {
      "npi": "123",
      "facility_code": "MGH-04B",
      "pin": "1234",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_npi_format",
      "message": "Invalid npi '123': must be 10-digit NPI number (e.g. 1487392045)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "verify_provider_auth",
    "arguments": {
      "npi": "1234567890",
      "facility_code": "MGH-04B",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_pin_format",
      "message":
        "Invalid pin '{'npi': '1234567890', 'facility_code': 'MGH-04B'}': must be 4-digit PIN (e.g. 7291)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "submit_license_extension",
    "arguments": {
      "npi": "1234567890",
      "state_license_number": "MA-RN-004821",
      "extension_type": "supervised",
      "extension_days": 45,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_extension_days",
      "message":
        "Invalid extension_days '45': must be Extension duration in days: exactly 30, 60, or 90",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "submit_license_extension",
    "arguments": {
      "npi": "1234567890",
      "state_license_number": "MA-RN-004821",
      "extension_type": "provisional",
      "extension_days": 30,
      "supervising_physician_npi": "OMIT",
    },
    "result": {
      "status": "error",
      "error_type": "authentication_required",
      "message": "Authentication (provider_auth) must be completed before calling this tool",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "submit_license_extension",
    "arguments": {
      "npi": "1234567890",
      "state_license_number": "MA-RN-004821",
      "extension_type": "supervised",
      "extension_days": 30,
      "supervising_physician_npi": "OMIT",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_npi_format",
      "message":
        "Invalid supervising_physician_npi 'OMIT': must be NPI of the supervising physician. Required for supervised extensions, must be omitted for provisional.",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "update_malpractice_coverage",
    "arguments": {
      "npi": "1234567890",
      "new_carrier": "geico",
      "new_policy_number": "POL-2024-AX7731",
      "per_occurrence_limit_usd": 1000000,
      "aggregate_limit_usd": 3000000,
      "effective_date": "2026-01-01",
      "expiration_date": "2027-01-01",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_carrier",
      "message":
        "Invalid new_carrier 'geico': Input should be 'proassurance', 'coverys', 'the_doctors_company', 'cna', 'zurich' or 'mag_mutual'",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "update_malpractice_coverage",
    "arguments": {
      "npi": "1234567890",
      "new_carrier": "cna",
      "new_policy_number": "POL-2024-AX7731",
      "per_occurrence_limit_usd": "1M",
      "aggregate_limit_usd": 3000000,
      "effective_date": "2026-01-01",
      "expiration_date": "2027-01-01",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_coverage_limit",
      "message":
        "Invalid per_occurrence_limit_usd '1M': must be Per-occurrence coverage limit in USD as an integer (e.g. 1000000, 2000000)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "submit_payroll_correction",
    "arguments": {
      "employee_id": "EMP000001",
      "shift_id": "SHF-20260501-0700",
      "correction_type": "overtime_hours",
      "corrected_hours": 25,
    },
    "result": {
      "status": "error",
      "error_type": "invalid_hours",
      "message":
        "Invalid corrected_hours '25': must be Correct total hours for the shift (not the delta). Example: 12.0 if 12 hours were worked. (e.g. 8.0, 12.0, 12.5)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "submit_payroll_correction",
    "arguments": {
      "employee_id": "EMP000001",
      "shift_id": "SHF-20260501-0700",
      "correction_type": "overtime_hours",
      "corrected_hours": "many",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_hours",
      "message":
        "Invalid corrected_hours 'many': must be Correct total hours for the shift (not the delta). Example: 12.0 if 12 hours were worked. (e.g. 8.0, 12.0, 12.5)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "reactivate_privileges",
    "arguments": {
      "npi": "1234567890",
      "privilege_codes": [
        "PRV-CARD-001",
        "card",
      ],
      "clearance_code": "CLR-OCC-048271",
      "leave_type_on_record": "medical_leave",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_privilege_code",
      "message":
        "Invalid privilege_codes 'card': String should match pattern '^PRV-[A-Z]{2,6}-\\d{3}$'",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "register_oncall_availability",
    "arguments": {
      "employee_id": "EMP000001",
      "unit_code": "4B-ICU",
      "availability_start_date": "2026-05-01",
      "availability_end_date": "2026-05-31",
      "oncall_tier": "primary",
      "blackout_dates": "2026-05-03",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_date_format",
      "message": "Invalid blackout_dates '2026-05-03': Input should be a valid list",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "add_visa_dependent",
    "arguments": {
      "employee_id": "EMP000001",
      "visa_petition_number": "WAC2512045678",
      "dependent_first_name": "Zoë",
      "dependent_last_name": "Dupont",
      "relationship": "spouse",
      "dependent_date_of_birth": "2000-01-01",
      "dependent_country_of_birth": "FR",
      "uscis_receipt_number": "IOE0912345678",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_name_format",
      "message":
        "Invalid dependent_first_name 'Zoë': must be Dependent first name, letters and hyphens only (e.g. Priya, Jean-Luc)",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "transfer_to_agent",
    "arguments": {
      "employee_id": "EMP000001",
      "transfer_reason": 3,
      "issue_summary": "x",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_transfer_reason",
      "message": "Invalid transfer_reason '3': Input should be a valid string",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "complete_onboarding_task",
    "arguments": {
      "employee_id": "EMP000001",
      "task_code": "BLS_UPLOAD",
      "completion_code": "AB1",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_parameter",
      "message":
        "Invalid or missing parameter 'completion_code': String should match pattern '^[A-Za-z0-9]{4}$'",
    },
  },
  {
    "domain": "eva_medical_hr",
    "tool": "check_pto_eligibility",
    "arguments": {
      "employee_id": "EMP000001",
      "pto_type": "vacation",
      "start_date": "2026-05-01",
      "end_date": "2026-05-02",
    },
    "result": {
      "status": "error",
      "error_type": "invalid_pto_type",
      "message": "Invalid pto_type 'vacation': Input should be 'pto' or 'sick'",
    },
  },
] as const;
