/**
 * The tau2 retail domain: 16 agent tools over a world of products, users and
 * orders, plus `end_conversation`. Tool names are tau2's snake_case names; the
 * reference's class names (`CancelPendingOrderTool`) are accepted as aliases.
 *
 * ```ts
 * import { domain } from "./mod.ts";
 * import { Environment } from "../../env/environment.ts";
 *
 * const env = new Environment(domain, { db: { products: {}, users: {}, orders: {} } }, {
 *   today: "2024-05-15",
 *   seed: "demo",
 * });
 * env.call("agent", "get_order_details", { order_id: "w0000000" }); // looks up "#W0000000"
 * ```
 *
 * @module
 */
import type { Domain } from "../domain.ts";
import { calculateTool, transferToHumanAgents } from "../tau2_common/shared_tools.ts";
import { tau2Domain } from "../tau2_common/tau2_domain.ts";
import {
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
} from "./order_tools.ts";
import {
  findUserIdByEmail,
  findUserIdByNameZip,
  getItemDetails,
  getOrderDetails,
  getProductDetails,
  getUserDetails,
  listAllProductTypes,
} from "./read_tools.ts";

export const domain: Domain = tau2Domain("tau2_retail", [
  findUserIdByNameZip,
  findUserIdByEmail,
  getOrderDetails,
  getProductDetails,
  getItemDetails,
  getUserDetails,
  listAllProductTypes,
  cancelPendingOrder,
  exchangeDeliveredOrderItems,
  modifyPendingOrderAddress,
  modifyPendingOrderItems,
  modifyPendingOrderPayment,
  modifyUserAddress,
  returnDeliveredOrderItems,
  calculateTool,
  transferToHumanAgents,
]);
