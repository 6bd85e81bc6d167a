/**
 * `transfer_to_agent`: hands the call to a human. It is recorded like a write, and
 * the call ends once its result is delivered.
 *
 * @module
 */
import { code, text } from "./params.ts";
import { evaTool, failed } from "./eva_tool.ts";
import { reservationNotFound, tables } from "./world.ts";
import { EXIT_TRANSFER } from "../common.ts";

export const transferToAgent = evaTool({
  name: "transfer_to_agent",
  alias: "TransferToAgentTool",
  kind: "write",
  effect: "transfer",
  description:
    "Transfer the call to a live agent: when the caller asks for one, when an exception beyond your authority is needed, or after two failed attempts. The call ends after the transfer.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    transfer_reason: text(
      "Why: passenger_requested, policy_exception_needed, complex_itinerary, complaint_escalation, technical_issue or unable_to_resolve.",
    ),
    issue_summary: text("What the caller needs and what has been tried, for the live agent."),
  },
  run({ confirmation_number, transfer_reason, issue_summary }, ctx) {
    if (!tables(ctx.db).reservations[confirmation_number]) {
      return failed(reservationNotFound(confirmation_number));
    }
    const n = ctx.next("transfer_to_agent");
    return {
      ok: true,
      result: {
        status: "success",
        transfer_id: `TRF-${confirmation_number}-${String(n).padStart(3, "0")}`,
        confirmation_number,
        transfer_reason,
        issue_summary,
        estimated_wait: "2-3 minutes",
        message: "Transferring to live agent",
      },
      record: {
        action_type: "transfer_to_agent",
        confirmation_number,
        transfer_reason,
        issue_summary,
      },
      exit: EXIT_TRANSFER,
    };
  },
});
