/**
 * The tau2 retail tools that change orders and users: cancel a pending order,
 * change its address, items or payment method, return or exchange items of a
 * delivered order, and change a user's default address. Each checks everything
 * before it changes anything, in the reference's order, so the first failing
 * check's message is the one the agent sees.
 *
 * @module
 */
import { compareCodePoints } from "../../canonical/canonical_json.ts";
import type { Db, ToolOutcome } from "../domain.ts";
import { list, text } from "../tau2_common/fields.ts";
import { failure, tau2Tool, written } from "../tau2_common/tau2_tool.ts";
import {
  cents,
  findOrder,
  findUser,
  findVariant,
  isPending,
  type Order,
  type OrderItem,
  paymentMethodOf,
  type User,
  type Variant,
} from "./world.ts";

const ORDER_ID = text("Order id, which starts with '#', for example '#W0000000'.");
const PAYMENT_METHOD_ID = text(
  "Payment method id that pays or receives the price difference, for example " +
    "'gift_card_0000000' or 'credit_card_0000000'.",
);
const ITEM_IDS = "Item ids in the order, for example '1008292230'; repeat an id to " +
  "count it twice.";
const NEW_ITEM_IDS = "Replacement item ids, position by position, each a variant of the " +
  "same product as the item it replaces.";

const ADDRESS = {
  address1: text("First address line, for example '123 Main St'."),
  address2: text("Second address line, for example 'Apt 1', or ''."),
  city: text("City, for example 'San Francisco'."),
  state: text("State, for example 'CA'."),
  country: text("Country, for example 'USA'."),
  zip: text("Zip code, for example '12345'."),
};

const CANCEL_REASONS = new Set(["no longer needed", "ordered by mistake"]);

export const cancelPendingOrder = tau2Tool({
  name: "cancel_pending_order",
  alias: "CancelPendingOrderTool",
  kind: "write",
  description: "Cancel a pending order (not one already processed or delivered) after the " +
    "user confirms. Gift-card payments are refunded at once, other methods in 5 to 7 " +
    "business days.",
  args: {
    order_id: ORDER_ID,
    reason: text("Why: 'no longer needed' or 'ordered by mistake'."),
  },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (order.status !== "pending") {
      return failure("value_error", "Non-pending order cannot be cancelled");
    }
    if (!CANCEL_REASONS.has(args.reason)) return failure("value_error", "Invalid reason");
    const user = _ownerOf(db, order);
    if (!user) return failure("not_found", "User not found");
    const refunds = [];
    for (const payment of order.payment_history ?? []) {
      const amount = payment.amount ?? 0;
      refunds.push({
        transaction_type: "refund",
        amount,
        payment_method_id: payment.payment_method_id,
      });
      const method = paymentMethodOf(user, payment.payment_method_id);
      if (method?.source === "gift_card") method.balance = cents((method.balance || 0) + amount);
    }
    order.status = "cancelled";
    order.cancel_reason = args.reason;
    (order.payment_history ??= []).push(...refunds);
    return written(
      "cancel_pending_order",
      args,
      { order_id: args.order_id, status: "cancelled" },
      order,
    );
  },
});

export const exchangeDeliveredOrderItems = tau2Tool({
  name: "exchange_delivered_order_items",
  alias: "ExchangeDeliveredOrderItemsTool",
  kind: "write",
  description: "Exchange items of a delivered order for other variants of the same " +
    "products, after the user confirms. A delivered order can be returned or exchanged " +
    "only once.",
  args: {
    order_id: ORDER_ID,
    item_ids: list(text("Item id."), ITEM_IDS),
    new_item_ids: list(text("Item id."), NEW_ITEM_IDS),
    payment_method_id: PAYMENT_METHOD_ID,
  },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (order.status !== "delivered") {
      return failure("value_error", "Non-delivered order cannot be exchanged");
    }
    const missing = _missingItem(order, args.item_ids);
    if (missing !== undefined) return failure("value_error", `Number of ${missing} not found.`);
    if (args.item_ids.length !== args.new_item_ids.length) {
      return failure("value_error", "The number of items to be exchanged should match.");
    }
    const priced = _priceReplacements(db, order, args.item_ids, args.new_item_ids, false);
    if (!("difference" in priced)) return priced;
    const difference = priced.difference;
    const user = _ownerOf(db, order);
    if (!user) return failure("not_found", "User not found");
    const method = paymentMethodOf(user, args.payment_method_id);
    if (!method) return failure("not_found", "Payment method not found");
    if (method.source === "gift_card" && (method.balance || 0) < difference) {
      return failure(
        "value_error",
        "Insufficient gift card balance to pay for the price difference",
      );
    }
    order.status = "exchange requested";
    order.exchange_items = _sorted(args.item_ids);
    order.exchange_new_items = _sorted(args.new_item_ids);
    order.exchange_payment_method_id = args.payment_method_id;
    order.exchange_price_difference = difference;
    return written(
      "exchange_delivered_order_items",
      args,
      { order_id: args.order_id, status: "exchange requested", price_difference: difference },
      order,
    );
  },
});

export const modifyPendingOrderAddress = tau2Tool({
  name: "modify_pending_order_address",
  alias: "ModifyPendingOrderAddressTool",
  kind: "write",
  description: "Change the shipping address of a pending order, after the user confirms.",
  args: { order_id: ORDER_ID, ...ADDRESS },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (!isPending(order)) return failure("value_error", "Non-pending order cannot be modified");
    order.address = _address(args);
    return written("modify_pending_order_address", args, { order_id: args.order_id }, order);
  },
});

export const modifyPendingOrderItems = tau2Tool({
  name: "modify_pending_order_items",
  alias: "ModifyPendingOrderItemsTool",
  kind: "write",
  description: "Swap items of a pending order for other variants of the same products, " +
    "after the user confirms. An order's items can be modified only once.",
  args: {
    order_id: ORDER_ID,
    item_ids: list(text("Item id."), ITEM_IDS),
    new_item_ids: list(text("Item id."), NEW_ITEM_IDS),
    payment_method_id: PAYMENT_METHOD_ID,
  },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (order.status !== "pending") {
      return failure("value_error", "Non-pending order cannot be modified");
    }
    const missing = _missingItem(order, args.item_ids);
    if (missing !== undefined) return failure("value_error", `${missing} not found`);
    if (args.item_ids.length !== args.new_item_ids.length) {
      return failure("value_error", "The number of items to be exchanged should match");
    }
    const priced = _priceReplacements(db, order, args.item_ids, args.new_item_ids, true);
    if (!("difference" in priced)) return priced;
    const { difference, variants } = priced;
    const user = _ownerOf(db, order);
    if (!user) return failure("not_found", "User not found");
    const method = paymentMethodOf(user, args.payment_method_id);
    if (!method) return failure("not_found", "Payment method not found");
    if (method.source === "gift_card" && (method.balance || 0) < difference) {
      return failure("value_error", "Insufficient gift card balance to pay for the new item");
    }
    (order.payment_history ??= []).push({
      transaction_type: difference > 0 ? "payment" : "refund",
      amount: Math.abs(difference),
      payment_method_id: args.payment_method_id,
    });
    if (method.source === "gift_card") method.balance = cents((method.balance || 0) - difference);
    // Each old id replaces the first line still carrying it, so repeats walk the list.
    args.item_ids.forEach((itemId, i) => {
      const line = (order.items ?? []).find((item) => item.item_id === itemId);
      const variant = variants[i]!;
      if (line) {
        line.item_id = args.new_item_ids[i]!;
        line.price = variant.price;
        line.options = { ...variant.options };
      }
    });
    order.status = "pending (item modified)";
    return written(
      "modify_pending_order_items",
      args,
      { order_id: args.order_id, price_difference: difference },
      order,
    );
  },
});

export const modifyPendingOrderPayment = tau2Tool({
  name: "modify_pending_order_payment",
  alias: "ModifyPendingOrderPaymentTool",
  kind: "write",
  description: "Pay a pending order with another of the user's payment methods, after the " +
    "user confirms; the old method is refunded.",
  args: {
    order_id: ORDER_ID,
    payment_method_id: text(
      "The new payment method id, for example 'gift_card_0000000' or 'credit_card_0000000'.",
    ),
  },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (!isPending(order)) return failure("value_error", "Non-pending order cannot be modified");
    const user = _ownerOf(db, order);
    if (!user) return failure("not_found", "User not found");
    const method = paymentMethodOf(user, args.payment_method_id);
    if (!method) return failure("not_found", "Payment method not found");
    const history = order.payment_history ?? [];
    if (history.length !== 1 || history[0]!.transaction_type !== "payment") {
      return failure("value_error", "There should be exactly one payment for a pending order");
    }
    const oldMethodId = history[0]!.payment_method_id;
    if (oldMethodId === args.payment_method_id) {
      return failure(
        "value_error",
        "The new payment method should be different from the current one",
      );
    }
    const amount = history[0]!.amount ?? 0;
    if (method.source === "gift_card" && (method.balance || 0) < amount) {
      return failure("value_error", "Insufficient gift card balance to pay for the order");
    }
    order.payment_history = [
      ...history,
      { transaction_type: "payment", amount, payment_method_id: args.payment_method_id },
      { transaction_type: "refund", amount, payment_method_id: oldMethodId },
    ];
    if (method.source === "gift_card") method.balance = cents((method.balance || 0) - amount);
    const oldMethod = paymentMethodOf(user, oldMethodId);
    if (oldMethod?.source === "gift_card") {
      oldMethod.balance = cents((oldMethod.balance || 0) + amount);
    }
    return written("modify_pending_order_payment", args, { order_id: args.order_id }, order);
  },
});

export const modifyUserAddress = tau2Tool({
  name: "modify_user_address",
  alias: "ModifyUserAddressTool",
  kind: "write",
  description: "Change a user's default address, after the user confirms.",
  args: { user_id: text("User id, for example 'sara_doe_496'."), ...ADDRESS },
  run(args, { db }) {
    const user = findUser(db, args.user_id);
    if (!user) return failure("not_found", `User ${args.user_id} not found`);
    user.address = _address(args);
    return written("modify_user_address", args, { user_id: args.user_id }, user);
  },
});

export const returnDeliveredOrderItems = tau2Tool({
  name: "return_delivered_order_items",
  alias: "ReturnDeliveredOrderItemsTool",
  kind: "write",
  description: "Request the return of items of a delivered order, after the user confirms. " +
    "The refund goes to the original payment method or a gift card; the user gets return " +
    "instructions by email.",
  args: {
    order_id: ORDER_ID,
    item_ids: list(text("Item id."), ITEM_IDS),
    payment_method_id: text(
      "Payment method id that receives the refund: the original one or a gift card.",
    ),
  },
  run(args, { db }) {
    const order = findOrder(db, args.order_id);
    if (!order) return _noOrder(args.order_id);
    if (order.status !== "delivered") {
      return failure("value_error", "Non-delivered order cannot be returned");
    }
    const user = _ownerOf(db, order);
    if (!user) return failure("not_found", "User not found");
    const method = paymentMethodOf(user, args.payment_method_id);
    if (!method) return failure("not_found", "Payment method not found");
    const originalMethodId = order.payment_history?.[0]?.payment_method_id;
    if (method.source !== "gift_card" && args.payment_method_id !== originalMethodId) {
      return failure("value_error", "Payment method should be the original payment method");
    }
    if (_missingItem(order, args.item_ids) !== undefined) {
      return failure("value_error", "Some item not found");
    }
    order.status = "return requested";
    order.return_items = _sorted(args.item_ids);
    order.return_payment_method_id = args.payment_method_id;
    return written(
      "return_delivered_order_items",
      args,
      { order_id: args.order_id, status: "return requested" },
      order,
    );
  },
});

function _noOrder(orderId: string): ToolOutcome {
  return failure("not_found", `Order ${orderId} not found`);
}

function _ownerOf(db: Db, order: Order): User | undefined {
  return findUser(db, order.user_id);
}

/** The first id asked for more times than the order holds it, if any. */
function _missingItem(order: Order, itemIds: readonly string[]): string | undefined {
  const held = (order.items ?? []).map((item) => item.item_id);
  const count = (ids: readonly string[], id: string) => ids.filter((x) => x === id).length;
  return itemIds.find((id) => count(itemIds, id) > count(held, id));
}

/**
 * The price difference of replacing items by new variants of the same products,
 * rounded to the cent, with each replacement's variant; or the failure.
 */
function _priceReplacements(
  db: Db,
  order: Order,
  itemIds: readonly string[],
  newItemIds: readonly string[],
  mustDiffer: boolean,
): { difference: number; variants: Variant[] } | ToolOutcome {
  let difference = 0;
  const variants: Variant[] = [];
  for (let i = 0; i < Math.min(itemIds.length, newItemIds.length); i++) {
    const itemId = itemIds[i]!;
    const newItemId = newItemIds[i]!;
    if (mustDiffer && itemId === newItemId) {
      return failure("value_error", "The new item id should be different from the old item id");
    }
    const line: OrderItem | undefined = (order.items ?? []).find((item) => item.item_id === itemId);
    if (!line) return failure("value_error", `Item ${itemId} not found`);
    const variant = findVariant(db, line.product_id, newItemId);
    if (!variant || !variant.available) {
      return failure("value_error", `New item ${newItemId} not found or available`);
    }
    variants.push(variant);
    difference += (variant.price ?? 0) - (line.price ?? 0);
  }
  return { difference: cents(difference), variants };
}

function _address(args: Record<string, string>): Record<string, string> {
  const { address1, address2, city, state, country, zip } = args;
  return {
    address1: address1!,
    address2: address2!,
    city: city!,
    state: state!,
    country: country!,
    zip: zip!,
  };
}

/** Python `sorted()` of strings: by code point. */
function _sorted(ids: readonly string[]): string[] {
  return [...ids].sort(compareCodePoints);
}
