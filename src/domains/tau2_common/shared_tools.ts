/**
 * The two tools tau2 airline and retail share word for word: `calculate` and
 * `transfer_to_human_agents` (which ends the call once the caller is handed over).
 *
 * @module
 */
import { EXIT_TRANSFER } from "../common.ts";
import type { ToolDef } from "../domain.ts";
import { calculate } from "./calculate.ts";
import { text } from "./fields.ts";
import { answer, failure, tau2Tool, written } from "./tau2_tool.ts";

export const calculateTool: ToolDef<{ expression: string }> = tau2Tool({
  name: "calculate",
  alias: "CalculateTool",
  kind: "read",
  description: "Work out an arithmetic expression made of numbers, + - * /, parentheses " +
    "and spaces; the answer is rounded to two decimals.",
  args: { expression: text("The expression, for example '(129.99 + 15) * 2'.") },
  usesDb: false,
  run({ expression }) {
    const outcome = calculate(expression);
    return outcome.ok
      ? answer({ status: "success", result: outcome.result })
      : failure("value_error", outcome.message);
  },
});

export const transferToHumanAgents: ToolDef<{ summary: string }> = tau2Tool({
  name: "transfer_to_human_agents",
  alias: "TransferToHumanAgentsTool",
  kind: "write",
  effect: "transfer",
  description: "Hand the caller over to a human agent with a summary of their issue. Only " +
    "when the caller asks for a human, or when the policy and your tools cannot resolve it.",
  args: { summary: text("What the caller needs, in a few sentences.") },
  usesDb: false,
  run(args) {
    const message = { message: "Transfer successful" };
    return written(
      "transfer_to_human_agents",
      args,
      message,
      { status: "success", ...message },
      EXIT_TRANSFER,
    );
  },
});
