import { deepEqual, equal } from "node:assert/strict";
import { domain } from "./mod.ts";
import { openRetail, USER } from "./_testing.ts";

Deno.test("tau2_retail has tau2's 16 tools plus end_conversation", () => {
  equal(domain.id, "tau2_retail");
  equal(domain.tools.length, 17);
  equal(domain.tools.at(-1)?.name, "end_conversation");
  equal(
    domain.tools.find((t) => t.name === "find_user_id_by_name_zip")?.aliases?.[0],
    "FindUserIdByNameZipTool",
  );
});

Deno.test("find_user_id_by_name_zip ignores the case of names but not the zip", () => {
  const env = openRetail();
  deepEqual(
    env.call("agent", "find_user_id_by_name_zip", {
      first_name: "bo",
      last_name: "TRAN",
      zip: "89501",
    }).result,
    {
      status: "success",
      user_id: USER,
    },
  );
  deepEqual(
    env.call("agent", "find_user_id_by_name_zip", {
      first_name: "Bo",
      last_name: "Tran",
      zip: "89502",
    }).result,
    {
      status: "error",
      error_type: "not_found",
      message: "User not found",
    },
  );
});

Deno.test("find_user_id_by_email ignores case", () => {
  const call = openRetail().call("agent", "find_user_id_by_email", {
    email: "bo.tran@EXAMPLE.com",
  });
  deepEqual(call.result, { status: "success", user_id: USER });
});

Deno.test("get_order_details upper-cases the id and adds a missing '#'", () => {
  const env = openRetail();
  for (const spoken of ["#W0000001", "w0000001", "W0000001"]) {
    equal(
      (env.call("agent", "get_order_details", { order_id: spoken }).result as { order_id: string })
        .order_id,
      "#W0000001",
    );
  }
  equal(
    (env.call("agent", "get_order_details", { order_id: "#W9" }).result as { message: string })
      .message,
    "Order #W9 not found",
  );
});

Deno.test("get_product_details and get_item_details look up products and variants", () => {
  const env = openRetail();
  equal(
    (env.call("agent", "get_product_details", { product_id: "1000000002" }).result as {
      name: string;
    }).name,
    "Kettle",
  );
  deepEqual(env.call("agent", "get_item_details", { item_id: "2000000012" }).result, {
    item_id: "2000000012",
    options: { material: "glass" },
    available: true,
    price: 20.1,
  });
  equal(
    (env.call("agent", "get_item_details", { item_id: "1000000002" }).result as { message: string })
      .message,
    "Item 1000000002 not found",
  );
});

Deno.test("get_user_details lower-cases the user id", () => {
  equal(
    (openRetail().call("agent", "get_user_details", { user_id: "BO_TRAN_2002" }).result as {
      user_id: string;
    }).user_id,
    USER,
  );
});

Deno.test("list_all_product_types gives the catalogue as Python's sorted JSON text", () => {
  deepEqual(openRetail().call("agent", "list_all_product_types", {}).result, {
    status: "success",
    product_types: '{"Kettle": "1000000002", "Lamp": "1000000001"}',
  });
});

Deno.test("calculate works without a world; the database tools do not", () => {
  const env = openRetail({});
  deepEqual(env.call("agent", "calculate", { expression: "80.7 - 50.5" }).result, {
    status: "success",
    result: "30.2",
  });
  equal(
    (env.call("agent", "get_order_details", { order_id: "#W1" }).result as { error_type: string })
      .error_type,
    "db_not_initialized",
  );
});

Deno.test("a retail validation error lists missing and extra arguments", () => {
  const call = openRetail().call("agent", "cancel_pending_order", {
    order_id: "#W0000001",
    why: "x",
  });
  deepEqual((call.result as { details: unknown[] }).details, [
    { field: "reason", error: "Field required", type: "missing" },
    { field: "why", error: "Extra inputs are not permitted", type: "extra_forbidden" },
  ]);
});
