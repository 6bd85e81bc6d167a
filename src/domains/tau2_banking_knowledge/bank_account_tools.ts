/**
 * The agent's discoverable bank-account tools: opening and closing accounts,
 * listing a customer's accounts and an account's transactions, transfers,
 * credits, interest reports and ATM deposit images.
 *
 * @module
 */
import { ageDays, type DiscoverableTool, p, TODAY } from "./discoverable.ts";
import { deterministicId } from "./ids.ts";
import { pyFixed, pyFloat, pyStr, truthy } from "./python_format.ts";
import {
  addRecord,
  type BankRecord,
  found,
  listing,
  query,
  queryText,
  recordOf,
  rows,
  writable,
} from "./tables.ts";
import { pythonRound } from "../tau2_common/python_number.ts";
import { accountBalance, get, parseBalance, toFloat } from "./values.ts";

const S = pyStr;
const money = (x: number) => pyFixed(x, 2);
const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(", ")}]`;
const isOpen = (r: BankRecord) => ["ACTIVE", "OPEN"].includes(get(r, "status") as string);
const kindOf = (r: BankRecord) => get(r, "account_type", get(r, "class", ""));

const CHECKING_EARLY_CLOSURE: Record<string, [number, number]> = {
  "Light Blue Account": [15, 30],
  "Light Green Account": [15, 30],
  "Green Fee-Free Account": [15, 30],
  "Blue Account": [25, 60],
  "Green Account": [25, 60],
  "Evergreen Account": [50, 90],
  "Bluest Account": [100, 180],
};
const SAVINGS_EARLY_CLOSURE: Record<string, [number, number]> = {
  "Bronze Account": [20, 60],
  "Silver Account": [35, 90],
  "Silver Plus Account": [35, 90],
  "Gold Account": [75, 180],
  "Gold Plus Account": [75, 180],
  "Gold Years Account": [75, 180],
  "Platinum Account": [150, 270],
  "Platinum Plus Account": [150, 270],
  "Diamond Elite Account": [150, 270],
};

/** A credit to a checking or savings account, and the transaction it posts. */
function credit(
  a: Record<string, unknown>,
  db: Parameters<DiscoverableTool["run"]>[1],
  kind: "checking" | "savings",
): string {
  if (!truthy(a.account_id) || a.amount === null || !truthy(a.credit_type)) {
    return "Error: Missing required parameters.";
  }
  const amount = toFloat(a.amount);
  if (amount === undefined) return "Error: Invalid credit amount. Must be a number.";
  if (amount <= 0) return "Error: Credit amount must be positive.";
  const types = kind === "checking"
    ? ["rebate_credit", "fee_refund"]
    : ["interest_correction", "fee_refund", "goodwill_credit"];
  if (!types.includes(a.credit_type as string)) {
    return `Error: Invalid credit_type. Must be one of: ${list(types)}`;
  }
  const account = recordOf(db, "accounts", a.account_id);
  if (!account) return `Error: Account '${S(a.account_id)}' not found.`;
  const cls = S(get(account, "class", "")).toLowerCase();
  if (kind === "checking" && cls !== "checking") {
    return `Error: Account '${
      S(a.account_id)
    }' is not a checking account. Credits can only be applied to checking accounts.`;
  }
  if (kind === "savings" && cls !== "saving" && cls !== "savings") {
    return `Error: Account '${
      S(a.account_id)
    }' is not a savings account. This tool only applies to savings accounts.`;
  }
  if (!isOpen(account)) return `Error: Account '${S(a.account_id)}' is not active.`;
  const before = accountBalance(account);
  const after = before + amount;
  writable(db, "accounts")![a.account_id as string]!.current_holdings = kind === "checking"
    ? `$${money(after)}`
    : money(after);
  const txn = `txn_${
    deterministicId(
      `${kind}_credit:${S(a.account_id)}:${S(a.credit_type)}:${pyFloat(amount)}:${TODAY}`,
    )
  }`;
  const description = a.credit_type === "rebate_credit"
    ? "REBATE CREDIT - CUSTOMER SERVICE"
    : a.credit_type === "interest_correction"
    ? "INTEREST CORRECTION - CUSTOMER SERVICE"
    : a.credit_type === "fee_refund"
    ? "FEE REFUND - CUSTOMER SERVICE"
    : "GOODWILL CREDIT - CUSTOMER SERVICE";
  writable(db, "bank_account_transaction_history")![txn] = {
    transaction_id: txn,
    account_id: a.account_id,
    date: TODAY,
    description,
    amount,
    type: a.credit_type,
    status: "posted",
  };
  return `\nCredit applied successfully!\n  - Transaction ID: ${txn}\n  - Account: ${
    S(a.account_id)
  }\n  - Credit Type: ${S(a.credit_type)}\n  - Amount: $${money(amount)}\n  - Previous Balance: $${
    money(before)
  }\n  - New Balance: $${money(after)}`;
}

/** `datetime.strptime` of a transaction date, in either of the two forms, as a sort key. */
function txnTime(date: unknown): number {
  const s = String(date ?? "");
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{1,2}):(\d{1,2}))?$/.exec(s);
  if (!m) return -Infinity;
  const [mo, d, y, h, mi, se] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  const t = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
  const back = new Date(t);
  const valid = back.getUTCMonth() === mo! - 1 && back.getUTCDate() === d! && h! < 24 &&
    mi! < 60 && se! < 62;
  return valid ? t : -Infinity;
}

export const bankAccountTools: DiscoverableTool[] = [
  {
    name: "open_bank_account_4821",
    mutates: true,
    description: "Open a new bank account for a customer.",
    params: [
      p("user_id", "string", "The customer's id"),
      p("account_type", "string", "checking, savings, business_checking or business_savings"),
      p("account_class", "string", "The account's full official class name"),
    ],
    run(a, db) {
      if (!truthy(a.user_id) || !truthy(a.account_type) || !truthy(a.account_class)) {
        return "Error: Missing required parameters.";
      }
      const types = ["checking", "savings", "business_checking", "business_savings"];
      if (!types.includes(a.account_type as string)) {
        return `Error: Invalid account_type. Must be one of: ${list(types)}`;
      }
      const age = (acc: BankRecord) => ageDays(get(acc, "date_opened", "")) ?? 0;
      const mine = Object.values(rows(db, "accounts") ?? {}).filter((x) =>
        get(x, "user_id") === a.user_id
      );
      const notMet = "Error: Account eligibility requirements not met.";
      const personalChecking = (x: BankRecord) =>
        ["checking", "personal_checking"].includes(kindOf(x) as string) && isOpen(x);
      if (a.account_type === "savings") {
        if (!mine.some((x) => personalChecking(x) && age(x) >= 14)) return notMet;
      }
      if (a.account_type === "business_checking") {
        if (mine.some((x) => get(x, "status") === "CLOSED")) return notMet;
        if (!mine.some(personalChecking)) return notMet;
      }
      if (a.account_type === "business_savings") {
        for (const x of mine) {
          const v = Object.hasOwn(x, "current_holdings")
            ? x.current_holdings
            : get(x, "balance", 0);
          if (parseBalance(v) < 0) return notMet;
        }
        const ok = mine.some((x) => kindOf(x) === "business_checking" && isOpen(x) && age(x) >= 30);
        if (!ok) return notMet;
      }
      const id = deterministicId(
        `account:${S(a.user_id)}:${S(a.account_type)}:${S(a.account_class)}`,
      );
      const added = addRecord(db, "accounts", id, {
        account_id: id,
        user_id: a.user_id,
        account_type: a.account_type,
        account_class: a.account_class,
        current_holdings: "0.00",
        status: "OPEN",
        date_opened: TODAY,
      });
      if (!added) return `Failed to open account: Account ID '${id}' may already exist.`;
      return `Bank account opened successfully!\n  - Account ID: ${id}\n  - User ID: ${
        S(a.user_id)
      }\n  - Account Type: ${S(a.account_type)}\n  - Account Class: ${
        S(a.account_class)
      }\n  - Status: OPEN\n  - Initial Balance: $0.00\n  - Date Opened: ${TODAY}`;
    },
  },
  {
    name: "close_bank_account_7392",
    mutates: true,
    description: "Close a checking or savings account.",
    params: [
      p("account_id", "string", "The account to close"),
      p("reason", "string", "Why it is closed", { fallback: "Customer requested closure" }),
      p("waive_early_closure_fee", "boolean", "Whether to waive an early-closure fee", {
        fallback: false,
      }),
    ],
    run(a, db) {
      if (!truthy(a.account_id)) return "Error: Missing required parameter (account_id).";
      const account = recordOf(db, "accounts", a.account_id);
      if (!account) return `Error: Account '${S(a.account_id)}' not found.`;
      if (get(account, "status") === "CLOSED") {
        return `Error: Account '${S(a.account_id)}' is already closed.`;
      }
      const balance = accountBalance(account);
      let fee = 0;
      if (!truthy(a.waive_early_closure_fee)) {
        const level = get(account, "level", "") as string;
        const cls = get(account, "class", "");
        const opened = get(account, "date_opened", "");
        const rule = cls === "checking"
          ? CHECKING_EARLY_CLOSURE[level]
          : cls === "savings"
          ? SAVINGS_EARLY_CLOSURE[level]
          : undefined;
        if (rule && truthy(opened)) {
          const age = ageDays(opened);
          if (age !== undefined && age < rule[1]) {
            if (balance < rule[0]) return "Error: Account unable to be closed.";
            fee = rule[0];
          }
        }
      }
      if (balance - fee !== 0) {
        return `Error: Account balance must be $0.00 before closing. Current balance: $${
          money(balance)
        }`;
      }
      const record = writable(db, "accounts")![a.account_id as string]!;
      record.status = "CLOSED";
      record.date_closed = TODAY;
      record.closure_reason = a.reason;
      record.early_closure_fee_waived = a.waive_early_closure_fee;
      return `Bank account closed successfully!\n  - Account ID: ${
        S(a.account_id)
      }\n  - Account Type: ${S(get(record, "account_type", "N/A"))}\n  - Account Class: ${
        S(get(record, "account_class", "N/A"))
      }\n  - Status: CLOSED\n  - Date Closed: ${TODAY}\n  - Reason: ${
        S(a.reason)
      }\n  - Early Closure Fee Waived: ${truthy(a.waive_early_closure_fee) ? "Yes" : "No"}`;
    },
  },
  {
    name: "get_all_user_accounts_by_user_id_3847",
    mutates: false,
    description: "List all of a customer's accounts: checking, savings and credit cards.",
    params: [p("user_id", "string", "The customer's id")],
    run(a, db) {
      if (!truthy(a.user_id)) return "Error: Missing required parameter: user_id";
      const q = `{"user_id": "${S(a.user_id)}"}`;
      const bank = queryText(db, "accounts", q);
      const cards = queryText(db, "credit_card_accounts", q);
      const out = [
        "User accounts retrieved successfully.",
        "",
        "Executed: get_all_user_accounts_by_user_id_3847",
        `Accounts for user ${S(a.user_id)}:`,
        "",
        "Bank Accounts:",
        found(bank) ? bank : "  No bank accounts found.",
        "\nCredit Card Accounts:",
        found(cards) ? cards : "  No credit card accounts found.",
      ];
      return out.join("\n");
    },
  },
  {
    name: "transfer_funds_between_bank_accounts_7291",
    mutates: true,
    description: "Move money from one bank account to another.",
    params: [
      p("source_account_id", "string", "The account debited"),
      p("destination_account_id", "string", "The account credited"),
      p("amount", "number", "The amount in dollars"),
    ],
    run(a, db) {
      if (!truthy(a.source_account_id) || !truthy(a.destination_account_id) || a.amount === null) {
        return "Error: Missing required parameters (source_account_id, destination_account_id, amount).";
      }
      const amount = toFloat(a.amount);
      if (amount === undefined) return `Error: Invalid amount '${S(a.amount)}'. Must be a number.`;
      if (amount <= 0) return "Error: Transfer amount must be positive.";
      if (a.source_account_id === a.destination_account_id) {
        return "Error: Source and destination accounts cannot be the same.";
      }
      const source = recordOf(db, "accounts", a.source_account_id);
      if (!source) return `Error: Source account '${S(a.source_account_id)}' not found.`;
      const dest = recordOf(db, "accounts", a.destination_account_id);
      if (!dest) return `Error: Destination account '${S(a.destination_account_id)}' not found.`;
      if (!isOpen(source)) {
        return `Error: Source account '${S(a.source_account_id)}' is not active.`;
      }
      if (!isOpen(dest)) {
        return `Error: Destination account '${S(a.destination_account_id)}' is not active.`;
      }
      const sourceBalance = accountBalance(source);
      if (sourceBalance < amount) {
        return `Error: Insufficient funds. Source account balance is $${
          money(sourceBalance)
        }, but transfer amount is $${money(amount)}.`;
      }
      const newSource = sourceBalance - amount;
      const newDest = accountBalance(dest) + amount;
      const accounts = writable(db, "accounts")!;
      accounts[a.source_account_id as string]!.current_holdings = `$${money(newSource)}`;
      accounts[a.destination_account_id as string]!.current_holdings = `$${money(newDest)}`;
      return `Transfer completed successfully!\n  - Amount: $${money(amount)}\n  - From: ${
        S(a.source_account_id)
      } (new balance: $${money(newSource)})\n  - To: ${
        S(a.destination_account_id)
      } (new balance: $${money(newDest)})`;
    },
  },
  {
    name: "apply_checking_account_credit_5829",
    mutates: true,
    description: "Credit a checking account (a missing rebate or a wrong fee).",
    params: [
      p("account_id", "string", "The checking account"),
      p("amount", "number", "The credit in dollars, above 0"),
      p("credit_type", "string", "'rebate_credit' or 'fee_refund'"),
    ],
    run: (a, db) => credit(a, db, "checking"),
  },
  {
    name: "apply_savings_account_credit_6831",
    mutates: true,
    description: "Credit a savings account (interest correction, fee refund or goodwill).",
    params: [
      p("account_id", "string", "The savings account"),
      p("amount", "number", "The credit in dollars, above 0"),
      p("credit_type", "string", "'interest_correction', 'fee_refund' or 'goodwill_credit'"),
    ],
    run: (a, db) => credit(a, db, "savings"),
  },
  {
    name: "submit_interest_discrepancy_report_7294",
    mutates: true,
    description: "Report interest credited at the wrong APY, for the back office to look into.",
    params: [
      p("account_id", "string", "The savings account"),
      p("user_id", "string", "The customer's id"),
      p("expected_apy", "number", "The APY due, in percent"),
      p("actual_apy", "number", "The APY applied, in percent"),
      p("amount_difference", "number", "The interest missing, in dollars"),
    ],
    run(a, db) {
      if (
        !truthy(a.account_id) || !truthy(a.user_id) || a.expected_apy === null ||
        a.actual_apy === null || a.amount_difference === null
      ) {
        return "Error: Missing required parameters.";
      }
      const expected = toFloat(a.expected_apy);
      const actual = toFloat(a.actual_apy);
      const difference = toFloat(a.amount_difference);
      if (expected === undefined || actual === undefined || difference === undefined) {
        return "Error: expected_apy, actual_apy, and amount_difference must be numbers.";
      }
      const account = recordOf(db, "accounts", a.account_id);
      if (!account) return `Error: Account '${S(a.account_id)}' not found.`;
      const user = recordOf(db, "users", a.user_id);
      if (!user) return `Error: User '${S(a.user_id)}' not found.`;
      const id = `IDR_${
        deterministicId(
          `interest_report:${S(a.account_id)}:${S(a.user_id)}:${pyFloat(expected)}:${
            pyFloat(actual)
          }:${TODAY}`,
        )
      }`;
      // The reference adds the report to a table its database does not have: nothing is kept.
      const apy = pythonRound(expected - actual, 4);
      const level = S(get(account, "level", "Unknown"));
      return `\nInterest Discrepancy Report Submitted Successfully!\n  - Report ID: ${id}\n  - Account: ${
        S(a.account_id)
      } (${level})\n  - Customer: ${S(get(user, "name", "Unknown"))}\n  - Expected APY: ${
        pyFloat(expected)
      }%\n  - Actual APY: ${pyFloat(actual)}%\n  - APY Difference: ${
        pyFloat(apy)
      }%\n  - Amount Difference: $${
        money(difference)
      }\n  - Status: PENDING_REVIEW\n\nThe backend team will investigate this discrepancy and ensure correct APY calculations are applied going forward.`;
    },
  },
  {
    name: "get_bank_account_transactions_9173",
    mutates: false,
    description: "List a bank account's transactions, newest first.",
    params: [p("account_id", "string", "The bank account")],
    run(a, db) {
      if (!truthy(a.account_id)) return "Error: Missing required parameter: account_id";
      if (!recordOf(db, "accounts", a.account_id)) {
        return `Error: Account '${S(a.account_id)}' not found.`;
      }
      const txns = query(db, "bank_account_transaction_history", { account_id: a.account_id });
      // Stable, newest first: equal times keep their order, as Python's sorted(reverse=True).
      const keyed = txns.map((t) => ({ t, k: txnTime(get(t[1], "date", "")) }));
      keyed.sort((x, y) => (x.k < y.k ? 1 : x.k > y.k ? -1 : 0));
      const out = [
        "Bank account transactions retrieved successfully.",
        "",
        "Executed: get_bank_account_transactions_9173",
        `Transactions for account ${S(a.account_id)}:`,
        keyed.length > 0
          ? listing("bank_account_transaction_history", keyed.map((x) => x.t))
          : "\nNo transactions found for this account.",
      ];
      return out.join("\n");
    },
  },
  {
    name: "get_atm_deposit_images_8473",
    mutates: false,
    description: "Look up the envelope and check images of a Rho-Bank ATM deposit.",
    params: [p("transaction_id", "string", "The ATM deposit's transaction id")],
    run(a, db) {
      if (!truthy(a.transaction_id)) return "Error: Missing required parameter: transaction_id";
      const txn = recordOf(db, "bank_account_transaction_history", a.transaction_id);
      const id = S(a.transaction_id);
      if (!txn) return `Error: Transaction '${id}' not found.`;
      if (get(txn, "type") !== "atm_deposit") {
        return `Error: Transaction '${id}' is not an ATM deposit. This tool only works for ATM deposit transactions.`;
      }
      const description = S(get(txn, "description", ""));
      const upper = description.toUpperCase();
      if (!upper.includes("RHO-BANK") && !upper.includes("RHOBANK")) {
        return `Error: Transaction '${id}' is from a third-party ATM. Deposit images are only available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must be submitted to the ATM network.`;
      }
      const amount = Math.abs(get(txn, "amount", 0) as number);
      return `ATM Deposit Image Retrieval Results\n=====================================\nTransaction ID: ${id}\nATM: ${description}\nDeposit Date: ${
        S(get(txn, "date", "Unknown"))
      }\nAmount Recorded: $${
        money(amount)
      }\n\n--- IMAGE STATUS ---\nStatus: IMAGES NOT AVAILABLE\nReason: Deposit images for this transaction have either expired (older than 90 days) or were not captured by the ATM system.\n\nFor deposits without available images, the dispute will proceed based on customer statement and ATM journal records only. Investigation timeline may be extended.\n`;
    },
  },
];
