/**
 * The tau2 airline domain: 14 agent tools over a world of flights, users and
 * reservations, plus `end_conversation`. Tool names are tau2's snake_case names;
 * the reference's class names (`BookReservationTool`) are accepted as aliases.
 *
 * ```ts
 * import { domain } from "./mod.ts";
 * import { Environment } from "../../env/environment.ts";
 *
 * const env = new Environment(domain, { db: { users: {}, flights: {}, reservations: {} } }, {
 *   today: "2024-05-15",
 *   seed: "demo",
 * });
 * env.call("agent", "calculate", { expression: "2 * 5" }); // result "10.0"
 * ```
 *
 * @module
 */
import type { Domain } from "../domain.ts";
import { calculateTool, transferToHumanAgents } from "../tau2_common/shared_tools.ts";
import { tau2Domain } from "../tau2_common/tau2_domain.ts";
import { bookReservation } from "./book_reservation.ts";
import { AIRLINE_MODELS } from "./params.ts";
import {
  getFlightStatus,
  getReservationDetails,
  getUserDetails,
  listAllAirports,
  searchDirectFlight,
  searchOnestopFlight,
} from "./read_tools.ts";
import {
  cancelReservation,
  sendCertificate,
  updateReservationBaggages,
  updateReservationFlights,
  updateReservationPassengers,
} from "./update_tools.ts";

export const domain: Domain = tau2Domain(
  "tau2_airline",
  [
    getUserDetails,
    getReservationDetails,
    listAllAirports,
    searchDirectFlight,
    searchOnestopFlight,
    getFlightStatus,
    bookReservation,
    cancelReservation,
    sendCertificate,
    updateReservationBaggages,
    updateReservationFlights,
    updateReservationPassengers,
    calculateTool,
    transferToHumanAgents,
  ],
  AIRLINE_MODELS,
);
