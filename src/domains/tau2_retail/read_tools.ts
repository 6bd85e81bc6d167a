/**
 * The tau2 retail tools that only read: finding a user by name and zip or by email,
 * and order, product, item and user details, and the product catalogue.
 *
 * @module
 */
import { compareCodePoints, escapeAscii } from "../../canonical/canonical_json.ts";
import { text } from "../tau2_common/fields.ts";
import { answer, failure, readOnly, tau2Tool } from "../tau2_common/tau2_tool.ts";
import { findItem, findOrder, findProduct, findUser, type Product, type User } from "./world.ts";

export const findUserIdByNameZip = tau2Tool({
  name: "find_user_id_by_name_zip",
  alias: "FindUserIdByNameZipTool",
  kind: "read",
  description: "Find a user id from first name, last name and zip code. Prefer looking " +
    "the user up by email; use this only when they cannot give it or it is not found.",
  args: {
    first_name: text("The customer's first name, for example 'John'."),
    last_name: text("The customer's last name, for example 'Doe'."),
    zip: text("The customer's zip code, for example '12345'."),
  },
  run({ first_name, last_name, zip }, { db }) {
    const users = (readOnly(db).users ?? {}) as Record<string, User>;
    for (const [userId, user] of Object.entries(users)) {
      if (
        (user.name?.first_name ?? "").toLowerCase() === first_name.toLowerCase() &&
        (user.name?.last_name ?? "").toLowerCase() === last_name.toLowerCase() &&
        (user.address?.zip ?? "") === zip
      ) {
        return answer({ status: "success", user_id: userId });
      }
    }
    return failure("not_found", "User not found");
  },
});

export const findUserIdByEmail = tau2Tool({
  name: "find_user_id_by_email",
  alias: "FindUserIdByEmailTool",
  kind: "read",
  description: "Find a user id from their email address.",
  args: { email: text("The user's email, for example 'someone@example.com'.") },
  run({ email }, { db }) {
    const users = (readOnly(db).users ?? {}) as Record<string, User>;
    const wanted = email.toLowerCase();
    for (const [userId, user] of Object.entries(users)) {
      if ((user.email ?? "").toLowerCase() === wanted) {
        return answer({ status: "success", user_id: userId });
      }
    }
    return failure("not_found", "User not found");
  },
});

const ORDER_ID = "Order id, which starts with '#', for example '#W0000000'.";

export const getOrderDetails = tau2Tool({
  name: "get_order_details",
  alias: "GetOrderDetailsTool",
  kind: "read",
  description: "Look up an order: status, items, address, fulfilments and payments.",
  args: { order_id: text(ORDER_ID) },
  run({ order_id }, { db }) {
    const order = findOrder(readOnly(db), order_id);
    return order ? answer(order) : failure("not_found", `Order ${order_id} not found`);
  },
});

export const getProductDetails = tau2Tool({
  name: "get_product_details",
  alias: "GetProductDetailsTool",
  kind: "read",
  description: "Look up a product type and all its variants (items) with options, " +
    "price and availability.",
  args: {
    product_id: text("Product id, for example '6086499569' (not an item id)."),
  },
  run({ product_id }, { db }) {
    const product = findProduct(readOnly(db), product_id);
    return product ? answer(product) : failure("not_found", `Product ${product_id} not found`);
  },
});

export const getItemDetails = tau2Tool({
  name: "get_item_details",
  alias: "GetItemDetailsTool",
  kind: "read",
  description: "Look up one item (a product variant): options, price and availability.",
  args: { item_id: text("Item id, for example '6086499569' (not a product id).") },
  run({ item_id }, { db }) {
    const item = findItem(readOnly(db), item_id);
    return item ? answer(item) : failure("not_found", `Item ${item_id} not found`);
  },
});

export const getUserDetails = tau2Tool({
  name: "get_user_details",
  alias: "GetUserDetailsTool",
  kind: "read",
  description: "Look up a user's profile: name, address, email, payment methods and orders.",
  args: { user_id: text("User id, for example 'sara_doe_496'.") },
  run({ user_id }, { db }) {
    const user = findUser(readOnly(db), user_id);
    return user ? answer(user) : failure("not_found", `User ${user_id} not found`);
  },
});

export const listAllProductTypes = tau2Tool({
  name: "list_all_product_types",
  alias: "ListAllProductTypesTool",
  kind: "read",
  description: "List every product type in the store (there are 50) with its product id.",
  args: {},
  run(_args, { db }) {
    const byName = new Map<string, string>();
    for (const product of Object.values((readOnly(db).products ?? {}) as Record<string, Product>)) {
      byName.set(product.name, product.product_id);
    }
    return answer({ status: "success", product_types: pythonDumpsSorted(byName) });
  },
});

/**
 * Python `json.dumps(d, sort_keys=True)` of a string-to-string dict: default `", "`
 * and `": "` separators, ASCII escapes. tau2 hands the catalogue over as this text.
 */
export function pythonDumpsSorted(entries: ReadonlyMap<string, string>): string {
  const keys = [...entries.keys()].sort(compareCodePoints);
  const quote = (s: string) => escapeAscii(JSON.stringify(s));
  return `{${keys.map((k) => `${quote(k)}: ${quote(entries.get(k)!)}`).join(", ")}}`;
}
