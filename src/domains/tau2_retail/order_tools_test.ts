import { deepEqual, equal } from "node:assert/strict";
import { giftBalance, openRetail, orderIn, retailWorld, USER } from "./_testing.ts";

const message = (result: unknown) => (result as { message: string }).message;

Deno.test("cancel_pending_order refunds every payment and restores a gift card to the cent", () => {
  const env = openRetail();
  const call = env.call("agent", "cancel_pending_order", {
    order_id: "#W0000001",
    reason: "no longer needed",
  });
  const order = orderIn(env, "#W0000001");
  equal(order.status, "cancelled");
  equal(order.cancel_reason, "no longer needed");
  deepEqual(order.payment_history, [
    { transaction_type: "payment", amount: 80.7, payment_method_id: "gift_card_2" },
    { transaction_type: "refund", amount: 80.7, payment_method_id: "gift_card_2" },
  ]);
  // 10.1 + 80.7 is 90.80000000000001 in floating point; tau2 rounds to 90.8.
  equal(giftBalance(env), 90.8);
  deepEqual(call.record?.result, { order_id: "#W0000001", status: "cancelled" });
});

Deno.test("cancel_pending_order takes only plainly pending orders and the two reasons", () => {
  const env = openRetail();
  equal(
    message(
      env.call("agent", "cancel_pending_order", {
        order_id: "#W0000003",
        reason: "no longer needed",
      }).result,
    ),
    "Non-pending order cannot be cancelled",
  );
  equal(
    message(
      env.call("agent", "cancel_pending_order", {
        order_id: "#W0000004",
        reason: "no longer needed",
      }).result,
    ),
    "Non-pending order cannot be cancelled",
  );
  equal(
    message(
      env.call("agent", "cancel_pending_order", { order_id: "#W0000001", reason: "too slow" })
        .result,
    ),
    "Invalid reason",
  );
  equal(env.actions.length, 0);
});

Deno.test("exchange_delivered_order_items records the exchange with a rounded difference", () => {
  const env = openRetail();
  const call = env.call("agent", "exchange_delivered_order_items", {
    order_id: "#W0000002",
    item_ids: ["2000000011", "2000000001"],
    new_item_ids: ["2000000012", "2000000002"],
    payment_method_id: "credit_card_1",
  });
  const order = orderIn(env, "#W0000002");
  equal(order.status, "exchange requested");
  deepEqual(order.exchange_items, ["2000000001", "2000000011"]);
  deepEqual(order.exchange_new_items, ["2000000002", "2000000012"]);
  equal(order.exchange_payment_method_id, "credit_card_1");
  // (20.1 - 30.2) + (60.25 - 50.5) is -0.3499999999999979 before rounding.
  equal(order.exchange_price_difference, -0.35);
  deepEqual(call.record?.result, {
    order_id: "#W0000002",
    status: "exchange requested",
    price_difference: -0.35,
  });
  // The items themselves stay until the exchange happens.
  equal((order.items as { item_id: string }[])[0]!.item_id, "2000000001");
});

Deno.test("exchange_delivered_order_items checks counts, variants and the gift card balance", () => {
  const env = openRetail();
  const exchange = (args: Record<string, unknown>) =>
    message(
      env.call("agent", "exchange_delivered_order_items", {
        order_id: "#W0000002",
        item_ids: ["2000000001"],
        new_item_ids: ["2000000002"],
        payment_method_id: "credit_card_1",
        ...args,
      }).result,
    );
  equal(
    exchange({
      item_ids: ["2000000001", "2000000001", "2000000001"],
      new_item_ids: ["2000000002", "2000000002", "2000000002"],
    }),
    "Number of 2000000001 not found.",
  );
  equal(exchange({ new_item_ids: [] }), "The number of items to be exchanged should match.");
  equal(exchange({ new_item_ids: ["2000000003"] }), "New item 2000000003 not found or available");
  equal(exchange({ new_item_ids: ["2000000012"] }), "New item 2000000012 not found or available");
  equal(
    exchange({
      item_ids: ["2000000001", "2000000001"],
      new_item_ids: ["2000000002", "2000000002"],
      payment_method_id: "gift_card_2",
    }),
    "Insufficient gift card balance to pay for the price difference",
  );
  equal(exchange({ payment_method_id: "gift_card_9" }), "Payment method not found");
  equal(exchange({ order_id: "#W0000001" }), "Non-delivered order cannot be exchanged");
  equal(env.actions.length, 0);
});

Deno.test("modify_pending_order_items swaps the items and charges the gift card to the cent", () => {
  const env = openRetail();
  const call = env.call("agent", "modify_pending_order_items", {
    order_id: "#W0000001",
    item_ids: ["2000000001"],
    new_item_ids: ["2000000002"],
    payment_method_id: "gift_card_2",
  });
  const order = orderIn(env, "#W0000001");
  equal(order.status, "pending (item modified)");
  deepEqual((order.items as unknown[])[0], {
    name: "Lamp",
    product_id: "1000000001",
    item_id: "2000000002",
    price: 60.25,
    options: { color: "blue" },
  });
  deepEqual((order.payment_history as unknown[]).at(-1), {
    transaction_type: "payment",
    amount: 9.75,
    payment_method_id: "gift_card_2",
  });
  // 10.1 - 9.75 is 0.34999999999999964 before rounding.
  equal(giftBalance(env), 0.35);
  deepEqual(call.record?.result, { order_id: "#W0000001", price_difference: 9.75 });
});

Deno.test("modify_pending_order_items refunds a cheaper item, once per order", () => {
  const env = openRetail();
  env.call("agent", "modify_pending_order_items", {
    order_id: "#W0000001",
    item_ids: ["2000000011"],
    new_item_ids: ["2000000012"],
    payment_method_id: "credit_card_1",
  });
  deepEqual((orderIn(env, "#W0000001").payment_history as unknown[]).at(-1), {
    transaction_type: "refund",
    amount: 10.1,
    payment_method_id: "credit_card_1",
  });
  const same = env.call("agent", "modify_pending_order_items", {
    order_id: "#W0000001",
    item_ids: ["2000000001"],
    new_item_ids: ["2000000001"],
    payment_method_id: "credit_card_1",
  });
  equal(message(same.result), "Non-pending order cannot be modified");
});

Deno.test("modify_pending_order_items replaces a repeated id line by line", () => {
  const world = retailWorld();
  const order = (world.orders as Record<string, { items: unknown[] }>)["#W0000001"]!;
  order.items = [order.items[0], order.items[0], order.items[1]];
  const env = openRetail(world);
  env.call("agent", "modify_pending_order_items", {
    order_id: "#W0000001",
    item_ids: ["2000000001", "2000000001"],
    new_item_ids: ["2000000002", "2000000002"],
    payment_method_id: "credit_card_1",
  });
  const items = orderIn(env, "#W0000001").items as { item_id: string }[];
  deepEqual(items.map((i) => i.item_id), ["2000000002", "2000000002", "2000000011"]);
  deepEqual((orderIn(env, "#W0000001").payment_history as unknown[]).at(-1), {
    transaction_type: "payment",
    amount: 19.5,
    payment_method_id: "credit_card_1",
  });
});

Deno.test("modify_pending_order_items refuses an unchanged item", () => {
  const call = openRetail().call("agent", "modify_pending_order_items", {
    order_id: "#W0000001",
    item_ids: ["2000000001"],
    new_item_ids: ["2000000001"],
    payment_method_id: "credit_card_1",
  });
  equal(message(call.result), "The new item id should be different from the old item id");
});

Deno.test("modify_pending_order_address works on any pending status", () => {
  const env = openRetail();
  const address = {
    address1: "9 Oak Rd",
    address2: "Apt 2",
    city: "Ely",
    state: "NV",
    country: "USA",
    zip: "89301",
  };
  const call = env.call("agent", "modify_pending_order_address", {
    order_id: "#W0000004",
    ...address,
  });
  equal(call.ok, true);
  deepEqual(orderIn(env, "#W0000004").address, address);
  const delivered = env.call("agent", "modify_pending_order_address", {
    order_id: "#W0000002",
    ...address,
  });
  equal(message(delivered.result), "Non-pending order cannot be modified");
});

Deno.test("modify_pending_order_payment moves the payment and refunds the old gift card", () => {
  const env = openRetail();
  env.call("agent", "modify_pending_order_payment", {
    order_id: "#W0000001",
    payment_method_id: "credit_card_1",
  });
  deepEqual(orderIn(env, "#W0000001").payment_history, [
    { transaction_type: "payment", amount: 80.7, payment_method_id: "gift_card_2" },
    { transaction_type: "payment", amount: 80.7, payment_method_id: "credit_card_1" },
    { transaction_type: "refund", amount: 80.7, payment_method_id: "gift_card_2" },
  ]);
  equal(giftBalance(env), 90.8);
});

Deno.test("modify_pending_order_payment refuses the same method and a short gift card", () => {
  const env = openRetail();
  const same = env.call("agent", "modify_pending_order_payment", {
    order_id: "#W0000001",
    payment_method_id: "gift_card_2",
  });
  equal(message(same.result), "The new payment method should be different from the current one");
  const short = env.call("agent", "modify_pending_order_payment", {
    order_id: "#W0000004",
    payment_method_id: "gift_card_2",
  });
  equal(message(short.result), "Insufficient gift card balance to pay for the order");
});

Deno.test("modify_user_address replaces the default address", () => {
  const env = openRetail();
  const address = {
    address1: "2 Pine Ct",
    address2: "",
    city: "Elko",
    state: "NV",
    country: "USA",
    zip: "89801",
  };
  const call = env.call("agent", "modify_user_address", { user_id: "Bo_Tran_2002", ...address });
  deepEqual((env.db.users as Record<string, { address: unknown }>)[USER]!.address, address);
  deepEqual(call.record?.result, { user_id: "Bo_Tran_2002" });
});

Deno.test("return_delivered_order_items goes to the original method or a gift card only", () => {
  const env = openRetail();
  const ret = (args: Record<string, unknown>) =>
    env.call("agent", "return_delivered_order_items", {
      order_id: "#W0000002",
      item_ids: ["2000000011", "2000000001"],
      payment_method_id: "credit_card_1",
      ...args,
    });
  equal(
    message(ret({ payment_method_id: "paypal_3" }).result),
    "Payment method should be the original payment method",
  );
  equal(message(ret({ item_ids: ["2000000011", "2000000011"] }).result), "Some item not found");
  equal(message(ret({ order_id: "#W0000001" }).result), "Non-delivered order cannot be returned");
  const ok = ret({ payment_method_id: "gift_card_2" });
  equal(ok.ok, true);
  const order = orderIn(env, "#W0000002");
  equal(order.status, "return requested");
  deepEqual(order.return_items, ["2000000001", "2000000011"]);
  equal(order.return_payment_method_id, "gift_card_2");
});
