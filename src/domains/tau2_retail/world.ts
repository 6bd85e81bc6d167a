/**
 * The tau2 retail world (`products`, `users`, `orders`) and its lookups. Lookups
 * forgive what speech recognition does to spelled ids, as the reference does: user
 * ids are lower-cased, order ids upper-cased with the leading `#` added when
 * missing. Records keep the raw arguments.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { pythonRound } from "../tau2_common/python_number.ts";
import { own } from "../tau2_common/tau2_tool.ts";

export interface Variant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

export interface Product {
  name: string;
  product_id: string;
  variants?: Record<string, Variant>;
}

export interface PaymentMethod {
  source: string;
  id: string;
  /** Gift cards only. */
  balance?: number;
  [field: string]: unknown;
}

export interface User {
  user_id: string;
  name?: { first_name?: string; last_name?: string };
  address?: Record<string, string>;
  email?: string;
  payment_methods?: Record<string, PaymentMethod>;
  orders?: string[];
  [field: string]: unknown;
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

export interface OrderPayment {
  transaction_type: string;
  amount: number;
  payment_method_id: string;
}

export interface Order {
  order_id: string;
  user_id: string;
  address?: Record<string, string>;
  items?: OrderItem[];
  status?: string;
  payment_history?: OrderPayment[];
  [field: string]: unknown;
}

export function findUser(db: Db, userId: string | null | undefined): User | undefined {
  return own<User>(db.users, userId ? userId.toLowerCase() : userId);
}

export function findOrder(db: Db, orderId: string): Order | undefined {
  if (!orderId) return undefined;
  const upper = orderId.toUpperCase();
  return own<Order>(db.orders, upper.startsWith("#") ? upper : `#${upper}`);
}

export function findProduct(db: Db, productId: string): Product | undefined {
  return own<Product>(db.products, productId);
}

/** A variant of any product by its item id. */
export function findItem(db: Db, itemId: string): Variant | undefined {
  if (!itemId) return undefined;
  for (const product of Object.values((db.products ?? {}) as Record<string, Product>)) {
    const variant = own<Variant>(product.variants, itemId);
    if (variant) return variant;
  }
  return undefined;
}

export function findVariant(db: Db, productId: string, itemId: string): Variant | undefined {
  return own<Variant>(findProduct(db, productId)?.variants, itemId);
}

export function paymentMethodOf(user: User, paymentMethodId: string): PaymentMethod | undefined {
  return own<PaymentMethod>(user.payment_methods, paymentMethodId);
}

/** tau2 keeps gift-card balances and price differences to the cent, rounded as Python. */
export function cents(value: number): number {
  return pythonRound(value, 2);
}

/** Any status naming "pending" counts as pending for address and payment changes. */
export function isPending(order: Order): boolean {
  return (order.status ?? "").includes("pending");
}
