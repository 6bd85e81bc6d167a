/**
 * The caller's discoverable tools: actions the agent hands over with
 * `give_discoverable_user_tool` and the caller then performs with
 * `call_discoverable_user_tool` (a cash-back dispute, a referral link, a card's
 * last digits, a mobile check deposit). Each checks it was given and logs its call.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { type DiscoverableTool, p, TODAY } from "./discoverable.ts";
import { ids } from "./ids.ts";
import { pyFixed, pyJsonDumps, pyStr, truthy } from "./python_format.ts";
import { addRecord, found, queryText, recordOf, rows, writable } from "./tables.ts";
import { get, parseBalance, toFloat } from "./values.ts";
import { createHash } from "node:crypto";

const S = pyStr;
const money = (x: number) => pyFixed(x, 2);

/** The reference's check that the agent gave the caller this tool. */
function notGiven(db: Db, name: string): string | undefined {
  const text = queryText(db, "user_discoverable_tools", `{"tool_name": "${name}"}`);
  if (!text.includes("No records found")) return undefined;
  return `Error: Tool '${name}' has not been given to you by the agent. The agent must first use \`give_discoverable_user_tool\` to give this tool to you.`;
}

function logCall(db: Db, name: string, args: Record<string, unknown>): void {
  const id = ids.userDiscoverableToolCall(name, pyJsonDumps(args, { sortKeys: true }));
  addRecord(db, "user_discoverable_tool_calls", id, {
    tool_name: name,
    arguments: args,
    called_at: TODAY,
    status: "CALLED",
  });
}

export const userDiscoverableTools: DiscoverableTool[] = [
  {
    name: "submit_cash_back_dispute_0589",
    mutates: true,
    description: "Dispute the cash back recorded on a transaction.",
    params: [
      p("user_id", "string", "Your customer id"),
      p("transaction_id", "string", "The transaction whose cash back is wrong"),
    ],
    run(a, db) {
      const name = "submit_cash_back_dispute_0589";
      const error = notGiven(db, name);
      if (error) return error;
      const args = { user_id: a.user_id, transaction_id: a.transaction_id };
      logCall(db, name, args);
      const id = ids.dispute(S(a.user_id), S(a.transaction_id));
      const config = rows(db, "task_config") ?? {};
      const settings = Object.keys(config).length > 0 ? get(config, "dispute_settings", {}) : {};
      const auto = truthy(get(settings as Record<string, unknown>, "auto_resolve_disputes", false));
      const record = auto
        ? {
          dispute_id: id,
          user_id: a.user_id,
          transaction_id: a.transaction_id,
          submitted_at: TODAY,
          status: "RESOLVED",
          resolution: "APPROVED",
        }
        : {
          dispute_id: id,
          user_id: a.user_id,
          transaction_id: a.transaction_id,
          submitted_at: TODAY,
          status: "SUBMITTED",
        };
      const status = auto
        ? "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to be updated."
        : "Status: SUBMITTED - Your dispute has been queued for review.";
      const added = addRecord(db, "cash_back_disputes", id, record);
      const head =
        `Cash back dispute submitted successfully. Your case has been queued for review.\n\nExecuted: ${name}\nArguments: ${
          pyJsonDumps(args, { indent: 2 })
        }\n`;
      return head +
        (added
          ? `Dispute ID: ${id}\n${status}`
          : "Note: Dispute may have already been submitted for this transaction.");
    },
  },
  {
    name: "get_referral_link",
    mutates: true,
    description: "Make a referral link for a credit card, to share with someone.",
    params: [
      p("user_id", "string", "Your customer id (the referrer)"),
      p("card_name", "string", "The credit card referred, e.g. 'Gold Rewards Card'"),
    ],
    run(a, db) {
      const name = "get_referral_link";
      const error = notGiven(db, name);
      if (error) return error;
      const args = { user_id: a.user_id, card_name: a.card_name };
      logCall(db, name, args);
      const id = ids.referralLink(S(a.user_id), S(a.card_name));
      const added = addRecord(db, "referrals", id, {
        referral_id: id,
        referrer_id: a.user_id,
        referred_account_type: a.card_name,
        referral_status: "NO_PROGRESS",
        date: TODAY,
      });
      const head =
        `Referral link generated successfully. Share this link with the person you want to refer.\n\nExecuted: ${name}\nArguments: ${
          pyJsonDumps(args, { indent: 2 })
        }\n`;
      return head +
        (added
          ? `Referral ID: ${id}\nReferral link: https://rhobank.com/refer/${id}`
          : "Note: A referral link for this card may have already been generated.");
    },
  },
  {
    name: "get_card_last_4_digits",
    mutates: false,
    description: "Look up the last 4 digits of a credit card's number.",
    params: [p("credit_card_account_id", "string", "The credit-card account")],
    run(a, db) {
      const name = "get_card_last_4_digits";
      const error = notGiven(db, name);
      if (error) return error;
      const args = { credit_card_account_id: a.credit_card_account_id };
      logCall(db, name, args);
      const id = S(a.credit_card_account_id);
      if (!found(queryText(db, "credit_card_accounts", `{"account_id": "${id}"}`))) {
        return `Error: Credit card account '${id}' not found.`;
      }
      const digest = createHash("sha256").update(`card_last4:${id}`, "utf8").digest("hex");
      const last4 = digest.replace(/[^0-9]/g, "").slice(0, 4).padEnd(4, "0");
      return `Card information retrieved successfully.\n\nExecuted: ${name}\nArguments: ${
        pyJsonDumps(args, { indent: 2 })
      }\nLast 4 digits of card: ${last4}`;
    },
  },
  {
    name: "deposit_check_3847",
    mutates: true,
    description: "Deposit a check into a checking or savings account from the mobile app.",
    params: [
      p("account_id", "string", "The account credited"),
      p("check_amount", "number", "The check's amount in dollars"),
    ],
    run(a, db) {
      const name = "deposit_check_3847";
      const error = notGiven(db, name);
      if (error) return error;
      const args = { account_id: a.account_id, check_amount: a.check_amount };
      logCall(db, name, args);
      const amount = toFloat(a.check_amount);
      if (amount === undefined) {
        return `Error: Invalid check amount '${S(a.check_amount)}'. Must be a number.`;
      }
      if (amount <= 0) return "Error: Check amount must be positive.";
      const account = recordOf(db, "accounts", a.account_id);
      if (!account) return `Error: Account '${S(a.account_id)}' not found.`;
      if (!["ACTIVE", "OPEN"].includes(get(account, "status") as string)) {
        return `Error: Account '${S(a.account_id)}' is not active.`;
      }
      const before = parseBalance(
        Object.hasOwn(account, "current_holdings")
          ? account.current_holdings
          : get(account, "balance", 0),
      );
      const after = before + amount;
      writable(db, "accounts")![a.account_id as string]!.current_holdings = `$${money(after)}`;
      return `Check deposited successfully. Funds will be available according to your account's deposit policy.\n\nExecuted: ${name}\nArguments: ${
        pyJsonDumps(args, { indent: 2 })
      }\nCheck deposit processed!\n  - Account: ${S(a.account_id)}\n  - Check Amount: $${
        money(amount)
      }\n  - Previous Balance: $${money(before)}\n  - New Balance: $${money(after)}`;
    },
  },
];
