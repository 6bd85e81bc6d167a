/**
 * The eva_itsm domain: EVA-Bench's IT service desk, 59 tools over an enterprise's
 * employees, assets, software catalog, facilities and access groups (incidents,
 * hardware and software requests, desks, parking and rooms, accounts and access,
 * security incidents), as the reference's `itsm_tools.py` defines them, plus
 * `end_conversation`.
 *
 * @module
 */
import type { Domain, ToolDef } from "../domain.ts";
import { endConversationTool } from "../common.ts";
import { domainValidationError } from "../eva_common/validation_error.ts";
import { ITSM_ERRORS } from "./params.ts";
import * as auth from "./auth_tools.ts";
import * as service from "./service_tools.ts";
import * as software from "./software_tools.ts";
import * as facility from "./facility_tools.ts";
import * as access from "./access_tools.ts";

/** The agent's tools, in the reference's order, then `end_conversation`. */
export const ITSM_TOOLS: readonly ToolDef[] = [
  auth.verifyEmployeeAuth,
  auth.initiateOtpAuth,
  auth.verifyOtpAuth,
  auth.verifyManagerAuth,
  auth.getEmployeeRecord,
  auth.getAssetRecord,
  auth.getEmployeeAssets,
  service.getTroubleshootingGuide,
  service.attemptAccountUnlock,
  service.attemptPasswordReset,
  service.createIncidentTicket,
  service.assignSlaTier,
  service.checkExistingOutage,
  service.addAffectedUser,
  service.linkKnownError,
  service.scheduleFieldDispatch,
  service.attachDiagnosticLog,
  service.checkHardwareEntitlement,
  service.submitHardwareRequest,
  service.initiateAssetReturn,
  service.verifyCostCenterBudget,
  software.getApplicationDetails,
  software.submitAccessRequest,
  software.routeApprovalWorkflow,
  software.getLicenseCatalogItem,
  software.submitLicenseRequest,
  service.validateCostCenter,
  software.getEmployeeLicenses,
  software.submitLicenseRenewal,
  facility.checkDeskAvailability,
  facility.submitDeskAssignment,
  facility.checkParkingAvailability,
  facility.submitParkingAssignment,
  facility.submitWaitlist,
  facility.checkErgonomicAssessment,
  facility.submitEquipmentRequest,
  facility.checkRoomAvailability,
  facility.submitRoomBooking,
  facility.sendCalendarInvite,
  access.lookupNewHire,
  access.checkExistingAccounts,
  access.provisionNewAccount,
  access.getGroupMemberships,
  access.getGroupDetails,
  access.submitGroupMembershipChange,
  access.checkRoleChangeAuthorized,
  access.getPermissionTemplates,
  access.submitPermissionChange,
  access.scheduleAccessReview,
  access.getOffboardingRecord,
  access.submitAccessRemoval,
  access.initiateAssetRecovery,
  access.reportSecurityIncident,
  access.initiateRemoteWipe,
  access.submitMfaReset,
  access.getRequestStatus,
  access.escalateApproval,
  access.transferToAgent,
  facility.markResolved,
  endConversationTool,
];

export const domain: Domain = {
  id: "eva_itsm",
  hashVariant: "eva",
  tools: ITSM_TOOLS,
  validationError: domainValidationError(ITSM_ERRORS),
};
