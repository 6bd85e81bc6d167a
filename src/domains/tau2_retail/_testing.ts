/**
 * A small invented shop for the tests: two products, two users, four orders. Each
 * test opens a fresh Environment over it.
 *
 * @module
 */
import { Environment } from "../../env/environment.ts";
import type { Db } from "../domain.ts";
import { domain } from "./mod.ts";

export const USER = "bo_tran_2002";

const LAMP_RED = { color: "red" };
const KETTLE_STEEL = { material: "steel" };

export function retailWorld(): Db {
  const line = (
    product_id: string,
    name: string,
    item_id: string,
    price: number,
    options: object,
  ) => ({
    name,
    product_id,
    item_id,
    price,
    options,
  });
  const address = {
    address1: "1 Elm St",
    address2: "",
    city: "Reno",
    country: "USA",
    state: "NV",
    zip: "89501",
  };
  return {
    products: {
      "1000000001": {
        name: "Lamp",
        product_id: "1000000001",
        variants: {
          "2000000001": { item_id: "2000000001", options: LAMP_RED, available: true, price: 50.5 },
          "2000000002": {
            item_id: "2000000002",
            options: { color: "blue" },
            available: true,
            price: 60.25,
          },
          "2000000003": {
            item_id: "2000000003",
            options: { color: "green" },
            available: false,
            price: 40,
          },
        },
      },
      "1000000002": {
        name: "Kettle",
        product_id: "1000000002",
        variants: {
          "2000000011": {
            item_id: "2000000011",
            options: KETTLE_STEEL,
            available: true,
            price: 30.2,
          },
          "2000000012": {
            item_id: "2000000012",
            options: { material: "glass" },
            available: true,
            price: 20.1,
          },
        },
      },
    },
    users: {
      [USER]: {
        user_id: USER,
        name: { first_name: "Bo", last_name: "Tran" },
        address,
        email: "Bo.Tran@example.com",
        payment_methods: {
          credit_card_1: {
            source: "credit_card",
            id: "credit_card_1",
            brand: "visa",
            last_four: "1111",
          },
          gift_card_2: { source: "gift_card", id: "gift_card_2", balance: 10.1 },
          paypal_3: { source: "paypal", id: "paypal_3" },
        },
        orders: ["#W0000001", "#W0000002", "#W0000003", "#W0000004"],
      },
      cy_park_3003: {
        user_id: "cy_park_3003",
        name: { first_name: "Cy", last_name: "Park" },
        address: { ...address, zip: "10001" },
        email: "cy@example.com",
        payment_methods: {},
        orders: [],
      },
    },
    orders: {
      // Pending, paid by gift card.
      "#W0000001": {
        order_id: "#W0000001",
        user_id: USER,
        address,
        items: [
          line("1000000001", "Lamp", "2000000001", 50.5, LAMP_RED),
          line("1000000002", "Kettle", "2000000011", 30.2, KETTLE_STEEL),
        ],
        status: "pending",
        fulfillments: [],
        payment_history: [{
          transaction_type: "payment",
          amount: 80.7,
          payment_method_id: "gift_card_2",
        }],
      },
      // Delivered, paid by card, with the same lamp twice.
      "#W0000002": {
        order_id: "#W0000002",
        user_id: USER,
        address,
        items: [
          line("1000000001", "Lamp", "2000000001", 50.5, LAMP_RED),
          line("1000000001", "Lamp", "2000000001", 50.5, LAMP_RED),
          line("1000000002", "Kettle", "2000000011", 30.2, KETTLE_STEEL),
        ],
        status: "delivered",
        fulfillments: [{
          tracking_id: ["1"],
          item_ids: ["2000000001", "2000000001", "2000000011"],
        }],
        payment_history: [{
          transaction_type: "payment",
          amount: 131.2,
          payment_method_id: "credit_card_1",
        }],
      },
      "#W0000003": {
        order_id: "#W0000003",
        user_id: USER,
        address,
        items: [line("1000000002", "Kettle", "2000000011", 30.2, KETTLE_STEEL)],
        status: "processed",
        fulfillments: [],
        payment_history: [{
          transaction_type: "payment",
          amount: 30.2,
          payment_method_id: "credit_card_1",
        }],
      },
      // Pending with its items already modified once, paid by card.
      "#W0000004": {
        order_id: "#W0000004",
        user_id: USER,
        address,
        items: [line("1000000002", "Kettle", "2000000012", 20.1, { material: "glass" })],
        status: "pending (item modified)",
        fulfillments: [],
        payment_history: [{
          transaction_type: "payment",
          amount: 20.1,
          payment_method_id: "credit_card_1",
        }],
      },
    },
  };
}

export function openRetail(world: Db = retailWorld()): Environment {
  return new Environment(domain, { db: world }, { today: "2024-05-15", seed: "test" });
}

export function orderIn(env: Environment, id: string): Record<string, unknown> {
  return (env.db.orders as Record<string, Record<string, unknown>>)[id]!;
}

export function giftBalance(env: Environment): number {
  const user =
    (env.db.users as Record<string, { payment_methods: Record<string, { balance: number }> }>)[
      USER
    ]!;
  return user.payment_methods.gift_card_2!.balance;
}
