/**
 * The reference's deterministic ids: the first bytes of the SHA-256 of a seed text,
 * in hex, under a prefix. Seeds print numbers as Python does (`{amount:.2f}`,
 * `str(float)`), so the same call mints the same id there and here.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { pyFixed, pyStr } from "./python_format.ts";

/** `_deterministic_id(seed, length)`: `length` hex digits. */
export function deterministicId(seed: string, length = 16): string {
  const digest = createHash("sha256").update(seed, "utf8").digest();
  return digest.subarray(0, Math.floor(length / 2)).toString("hex");
}

export const ids = {
  transaction: (user: string, card: string, merchant: string, amount: number, category: string) =>
    `txn_${
      deterministicId(
        ["transaction", user, card, merchant, pyFixed(amount, 2), category].join(":"),
        12,
      )
    }`,
  referral: (referrer: string, accountType: string) =>
    deterministicId(`referral:${referrer}:${accountType}`, 16),
  application: (card: string, name: string, income: number, subscription: unknown) =>
    deterministicId(
      `credit_card:${card}:${name}:${pyStr(income)}:${subscription ? "True" : "False"}`,
      16,
    ),
  verification: (user: string, time: string) =>
    `${user}_${time.replaceAll(" ", "_").replaceAll(":", "").replaceAll("-", "")}`,
  userDiscoverableTool: (name: string) => deterministicId(`user_discoverable_tool:${name}`, 16),
  userDiscoverableToolCall: (name: string, argsJson: string) =>
    deterministicId(`user_discoverable_tool_call:${name}:${argsJson}`, 16),
  dispute: (user: string, transaction: string) =>
    `dsp_${deterministicId(`dispute:${user}:${transaction}`, 12)}`,
  referralLink: (user: string, card: string) =>
    deterministicId(`referral_link:${user}:${card}`, 16),
  agentDiscoverableTool: (name: string) => deterministicId(`agent_discoverable_tool:${name}`, 16),
  creditCardOrder: (account: string, user: string, reason: string) =>
    `ccord_${deterministicId(`credit_card_order:${account}:${user}:${reason}`, 12)}`,
  closureReason: (account: string, user: string) =>
    `clsr_${deterministicId(`closure_reason:${account}:${user}`, 12)}`,
  accountFlag: (account: string, flag: string, expiration: string) =>
    `ccflag_${deterministicId(`account_flag:${account}:${flag}:${expiration}`, 12)}`,
  creditLimitRequest: (account: string, user: string, amount: number) =>
    `cli_${deterministicId(`cli_request:${account}:${user}:${pyFixed(amount, 2)}`, 12)}`,
  debitCardOrder: (account: string, user: string, delivery: string) =>
    `dcord_${deterministicId(`debit_card_order:${account}:${user}:${delivery}`, 12)}`,
  debitCard: (account: string, user: string, date: string) =>
    `dbc_${deterministicId(`debit_card:${account}:${user}:${date}`, 12)}`,
};
