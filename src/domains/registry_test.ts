import assert from "node:assert/strict";
import { getDomain } from "./registry.ts";
import { InputError } from "../problem/problem.ts";

Deno.test("domain ids from input are own names only: prototype names are unknown domains", async () => {
  for (const id of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    await assert.rejects(() => getDomain(id), (e) => {
      assert.ok(e instanceof InputError, String(e));
      assert.match(e.message, new RegExp(`^unknown domain "${id}"`));
      return true;
    });
  }
  assert.equal((await getDomain("flow")).id, "flow");
});
