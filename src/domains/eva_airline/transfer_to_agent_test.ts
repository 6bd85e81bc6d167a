import assert from "node:assert/strict";
import { EXIT_TRANSFER } from "../common.ts";
import { callFails, testEnv } from "./_test_world.ts";

const ARGS = {
  confirmation_number: "QX7R2M",
  transfer_reason: "passenger_requested",
  issue_summary: "Caller asked for a person.",
};

Deno.test("transfer_to_agent records the transfer, numbers it and ends the call", () => {
  const env = testEnv();
  const before = env.hashes().db_sha256;
  const r = env.call("agent", "TransferToAgentTool", ARGS);
  assert.equal(r.ok, true);
  assert.equal(r.tool, "transfer_to_agent");
  assert.equal(r.exit, EXIT_TRANSFER);
  assert.deepEqual(r.result, {
    status: "success",
    transfer_id: "TRF-QX7R2M-001",
    ...ARGS,
    estimated_wait: "2-3 minutes",
    message: "Transferring to live agent",
  });
  assert.deepEqual(env.actions, [{ action_type: "transfer_to_agent", ...ARGS, side: "agent" }]);
  // A transfer changes no table.
  assert.equal(env.hashes().db_sha256, before);
  assert.equal(
    (env.call("agent", "transfer_to_agent", ARGS).result as { transfer_id: string }).transfer_id,
    "TRF-QX7R2M-002",
  );
});

Deno.test("transfer_to_agent needs a known booking and a reason", () => {
  const env = testEnv();
  assert.equal(
    callFails(env, "transfer_to_agent", { ...ARGS, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  const noReason = callFails(env, "transfer_to_agent", {
    confirmation_number: "QX7R2M",
    issue_summary: "x",
  });
  assert.deepEqual(noReason, {
    status: "error",
    error_type: "invalid_parameter",
    message: "Invalid or missing parameter 'transfer_reason': Field required",
  });
});
