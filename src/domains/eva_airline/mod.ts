/**
 * The eva_airline domain (reference-harness §6.2): SkyWay Airlines' reservations,
 * journeys and disruptions, with 15 tools for changes, cancellations, refunds,
 * ancillaries, compensation and transfers, plus `end_conversation`.
 *
 * @example
 * ```ts
 * import { domain } from "./mod.ts";
 * import { Environment } from "../../env/environment.ts";
 *
 * const env = new Environment(domain, { db: { reservations: {}, journeys: {} } }, {
 *   today: "2026-03-17",
 *   seed: "0",
 * });
 * const r = env.call("agent", "get_reservation", { confirmation_number: "ABC123", last_name: "Doe" });
 * console.log(r.result); // { status: "error", error_type: "not_found", ... }
 * ```
 *
 * @module
 */
import type { Domain, ToolDef } from "../domain.ts";
import { endConversationTool } from "../common.ts";
import {
  getDisruptionInfo,
  getFlightStatus,
  getReservation,
  searchRebookingOptions,
} from "./read_tools.ts";
import { rebookFlight } from "./rebook_flight.ts";
import { cancelReservation, processRefund } from "./cancellation.ts";
import { addBaggageAllowance, addMealRequest, addToStandby, assignSeat } from "./ancillaries.ts";
import { issueHotelVoucher, issueMealVoucher, issueTravelCredit } from "./compensation.ts";
import { transferToAgent } from "./transfer_to_agent.ts";
import { evaValidationError } from "./validation_error.ts";

/** The agent's tools, in the reference's order, then `end_conversation`. */
export const EVA_TOOLS: readonly ToolDef[] = [
  getReservation,
  getFlightStatus,
  getDisruptionInfo,
  searchRebookingOptions,
  rebookFlight,
  cancelReservation,
  processRefund,
  assignSeat,
  addBaggageAllowance,
  addMealRequest,
  addToStandby,
  issueTravelCredit,
  issueHotelVoucher,
  issueMealVoucher,
  transferToAgent,
  endConversationTool,
];

/** The action types eva write tools record. */
export const EVA_ACTION_TYPES: readonly string[] = EVA_TOOLS
  .filter((t) => t.kind === "write").map((t) => t.name);

export const domain: Domain = {
  id: "eva_airline",
  tools: EVA_TOOLS,
  validationError: evaValidationError,
};

export { changeFee } from "./rebook_flight.ts";
export { seatFor } from "./ancillaries.ts";
