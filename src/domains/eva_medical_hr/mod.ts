/**
 * The eva_medical_hr domain: EVA-Bench's hospital HR desk, 48 tools over its
 * employees and credentialed providers (licenses, shifts, malpractice, onboarding,
 * DEA registrations, FMLA, payroll, privileges, on-call, I-9, visas, PTO), as the
 * reference's `medical_hr_tools.py` defines them, plus `end_conversation`.
 *
 * @module
 */
import type { Domain, ToolDef } from "../domain.ts";
import { endConversationTool } from "../common.ts";
import { domainValidationError } from "../eva_common/validation_error.ts";
import { MEDICAL_HR_ERRORS } from "./params.ts";
import * as auth from "./auth_tools.ts";
import * as prov from "./provider_tools.ts";
import * as emp from "./employee_tools.ts";

/** The agent's tools, in the reference's order, then `end_conversation`. */
export const MEDICAL_HR_TOOLS: readonly ToolDef[] = [
  auth.verifyEmployeeAuth,
  auth.verifyProviderAuth,
  auth.initiateOtpAuth,
  auth.verifyOtpAuth,
  auth.getProviderProfile,
  auth.getEmployeeRecord,
  auth.checkAppointmentAvailability,
  prov.getLicenseRecord,
  prov.checkExtensionEligibility,
  prov.submitLicenseExtension,
  prov.notifyCredentialingCommittee,
  emp.getShiftRecord,
  emp.checkSwapEligibility,
  emp.verifyColleagueCertifications,
  emp.confirmShiftSwap,
  emp.notifyDepartmentManager,
  prov.getMalpracticeRecord,
  prov.updateMalpracticeCoverage,
  emp.getOnboardingChecklist,
  emp.completeOnboardingTask,
  emp.scheduleOrientationFollowup,
  prov.getDeaRecord,
  prov.transferDeaRegistration,
  prov.notifyPdmp,
  emp.checkLeaveEligibility,
  emp.submitFmlaCase,
  emp.scheduleReturnToWorkCheckin,
  emp.getTimesheetRecord,
  emp.checkCorrectionEligibility,
  emp.submitPayrollCorrection,
  prov.getPrivilegeRecord,
  prov.checkReactivationEligibility,
  prov.scheduleCompetencyReview,
  prov.reactivatePrivileges,
  prov.updateEhrAccess,
  emp.getOncallSchedule,
  emp.checkOncallEligibility,
  emp.registerOncallAvailability,
  emp.getI9Record,
  emp.submitI9Verification,
  emp.notifyHrCompliance,
  emp.getVisaRecord,
  emp.addVisaDependent,
  emp.notifyImmigrationCounsel,
  emp.getPtoBalance,
  emp.checkPtoEligibility,
  emp.submitPtoRequest,
  emp.transferToAgent,
  endConversationTool,
];

export const domain: Domain = {
  id: "eva_medical_hr",
  hashVariant: "eva",
  tools: MEDICAL_HR_TOOLS,
  validationError: domainValidationError(MEDICAL_HR_ERRORS),
};
