/**
 * The agent's discoverable debit-card tools: disputes (Regulation E), orders,
 * activation (three variants, by why the card was issued), closing, freezing,
 * fraud alerts, PINs, recurring blocks, listing and temporary limits.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { ageDays, type DiscoverableTool, p, TODAY } from "./discoverable.ts";
import { deterministicId, ids } from "./ids.ts";
import { pyFixed, pyFloat, pyJsonDumps, pyStr, titled, truthy } from "./python_format.ts";
import {
  addRecord,
  type BankRecord,
  found,
  queryText,
  recordOf,
  rows,
  writable,
} from "./tables.ts";
import { get, toFloat } from "./values.ts";

const S = pyStr;
const money = (x: number) => pyFixed(x, 2);
const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(", ")}]`;
const isDigits = (s: unknown) => typeof s === "string" && /^[0-9]+$/.test(s);

const SEQUENTIAL_PINS = [
  "0123",
  "1234",
  "2345",
  "3456",
  "4567",
  "5678",
  "6789",
  "9876",
  "8765",
  "7654",
  "6543",
  "5432",
  "4321",
  "3210",
];

/** `_validate_pin`: undefined when the PIN is acceptable. */
function pinProblem(pin: unknown): string | undefined {
  if (!truthy(pin) || !isDigits(pin) || (pin as string).length !== 4) {
    return "PIN must be exactly 4 digits.";
  }
  if (SEQUENTIAL_PINS.includes(pin as string)) {
    return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN.";
  }
  if (new Set(pin as string).size === 1) {
    return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN.";
  }
  return undefined;
}

const ACTIVATOR: Record<string, string> = {
  new_account: "activate_debit_card_8291",
  first_card: "activate_debit_card_8291",
  lost: "activate_debit_card_8292",
  stolen: "activate_debit_card_8292",
  fraud: "activate_debit_card_8292",
  expired: "activate_debit_card_8293",
  damaged: "activate_debit_card_8293",
  upgrade: "activate_debit_card_8293",
  bank_reissue: "activate_debit_card_8293",
};

/** The checks every activation makes; the card on success. */
function activationCheck(
  a: Record<string, unknown>,
  db: Db,
  allowed: readonly string[],
  tool: string,
): { error: string } | { card: BankRecord } {
  if (![a.card_id, a.last_4_digits, a.expiration_date, a.cvv, a.pin].every(truthy)) {
    return {
      error:
        "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.",
    };
  }
  const pin = pinProblem(a.pin);
  if (pin) return { error: `Error: ${pin}` };
  if (!isDigits(a.cvv) || (a.cvv as string).length !== 3) {
    return { error: "Error: CVV must be exactly 3 digits." };
  }
  if (!isDigits(a.last_4_digits) || (a.last_4_digits as string).length !== 4) {
    return { error: "Error: Last 4 digits must be exactly 4 digits." };
  }
  const card = recordOf(db, "debit_cards", a.card_id);
  if (!card) return { error: `Error: Debit card '${S(a.card_id)}' not found.` };
  const reason = get(card, "issue_reason", "new_account");
  if (!allowed.includes(reason as string)) {
    const right = Object.hasOwn(ACTIVATOR, S(reason)) ? ACTIVATOR[S(reason)] : "unknown";
    return {
      error: `Error: Wrong activation tool. This card has issue_reason='${
        S(reason)
      }'. Please use ${right} instead of ${tool}.`,
    };
  }
  if (get(card, "status") === "ACTIVE") {
    return { error: `Error: Debit card '${S(a.card_id)}' is already active.` };
  }
  if (get(card, "status") !== "PENDING") {
    return {
      error: `Error: Debit card '${S(a.card_id)}' cannot be activated. Current status: ${
        S(get(card, "status"))
      }. Only PENDING cards can be activated.`,
    };
  }
  if (get(card, "last_4_digits") !== a.last_4_digits) {
    return {
      error: "Error: Card verification failed. The last 4 digits do not match our records.",
    };
  }
  const accountId = get(card, "account_id");
  const account = truthy(accountId) ? recordOf(db, "accounts", accountId) : undefined;
  if (account && get(account, "status") !== "OPEN") {
    return {
      error: `Error: The linked checking account '${
        S(accountId)
      }' is no longer open. Card cannot be activated.`,
    };
  }
  return { card };
}

/** The other ACTIVE cards of the card's account, given `status` and the fields set on each. */
function retireOthers(
  db: Db,
  cardId: unknown,
  accountId: unknown,
  update: BankRecord,
): string[] {
  const retired: string[] = [];
  for (const [id, other] of Object.entries(rows(db, "debit_cards") ?? {})) {
    if (
      id !== cardId && get(other, "account_id") === accountId && get(other, "status") === "ACTIVE"
    ) {
      Object.assign(writable(db, "debit_cards")![id]!, update);
      retired.push(id);
    }
  }
  return retired;
}

const ACTIVATION_PARAMS = [
  p("card_id", "string", "The debit card to activate"),
  p("last_4_digits", "string", "The card number's last 4 digits (to verify)"),
  p("expiration_date", "string", "The card's expiration date, MM/YY"),
  p("cvv", "string", "The 3-digit CVV"),
  p("pin", "string", "The 4-digit PIN the customer chooses"),
];

const DEBIT_CATEGORIES = [
  "unauthorized_transaction",
  "atm_cash_discrepancy",
  "atm_deposit_not_credited",
  "duplicate_charge",
  "incorrect_amount",
  "goods_services_not_received",
  "recurring_charge_after_cancellation",
  "card_present_fraud",
  "card_not_present_fraud",
];
const TRANSACTION_TYPES = [
  "pin_purchase",
  "signature_purchase",
  "online_purchase",
  "atm_withdrawal",
  "atm_deposit",
  "recurring_payment",
  "person_to_person",
];

export const debitCardTools: DiscoverableTool[] = [
  {
    name: "file_debit_card_transaction_dispute_6281",
    mutates: true,
    description: "File a formal Regulation E dispute of a debit-card transaction.",
    params: [
      p("transaction_id", "string", "The disputed transaction"),
      p("account_id", "string", "The checking account of the card"),
      p("card_id", "string", "The debit card"),
      p("user_id", "string", "The customer's id"),
      p("dispute_category", "string", `One of: ${DEBIT_CATEGORIES.join(", ")}`),
      p("transaction_date", "string", "When the transaction happened, MM/DD/YYYY"),
      p("discovery_date", "string", "When the customer noticed it, MM/DD/YYYY"),
      p("disputed_amount", "number", "The amount disputed, in dollars"),
      p("transaction_type", "string", `One of: ${TRANSACTION_TYPES.join(", ")}`),
      p("card_in_possession", "boolean", "Whether the customer still has the card"),
      p("pin_compromised", "string", "'yes_shared', 'yes_observed', 'no' or 'unknown'"),
      p("contacted_merchant", "boolean", "Whether the merchant was contacted first"),
      p("police_report_filed", "boolean", "Whether a police report was filed"),
      p("written_statement_provided", "boolean", "Whether a written statement was given"),
      p("provisional_credit_eligible", "boolean", "Whether provisional credit applies"),
      p("customer_max_liability_amount", "number", "The customer's most liability; -1: unlimited"),
      p(
        "card_action",
        "string",
        "'keep_active', 'freeze_pending_investigation' or 'close_and_reissue'",
      ),
    ],
    run(a, db) {
      const required = [
        a.transaction_id,
        a.account_id,
        a.card_id,
        a.user_id,
        a.dispute_category,
        a.transaction_date,
        a.discovery_date,
        a.disputed_amount,
        a.transaction_type,
        a.pin_compromised,
        a.card_action,
      ];
      if (!required.every(truthy)) return "Error: Missing required parameters.";
      if (a.customer_max_liability_amount === null) {
        return "Error: customer_max_liability_amount is required.";
      }
      if (
        [
          a.card_in_possession,
          a.contacted_merchant,
          a.police_report_filed,
          a
            .written_statement_provided,
        ].some((x) => x === null)
      ) {
        return "Error: card_in_possession, contacted_merchant, police_report_filed, and written_statement_provided are required boolean fields.";
      }
      if (!DEBIT_CATEGORIES.includes(a.dispute_category as string)) {
        return `Error: Invalid dispute_category. Must be one of: ${list(DEBIT_CATEGORIES)}`;
      }
      if (!TRANSACTION_TYPES.includes(a.transaction_type as string)) {
        return `Error: Invalid transaction_type. Must be one of: ${list(TRANSACTION_TYPES)}`;
      }
      const pins = ["yes_shared", "yes_observed", "no", "unknown"];
      if (!pins.includes(a.pin_compromised as string)) {
        return `Error: Invalid pin_compromised. Must be one of: ${list(pins)}`;
      }
      const actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"];
      if (!actions.includes(a.card_action as string)) {
        return `Error: Invalid card_action. Must be one of: ${list(actions)}`;
      }
      const amount = a.disputed_amount as number;
      if (amount <= 0) return "Error: disputed_amount must be a positive number.";
      const id = ids.dispute(S(a.user_id), S(a.transaction_id));
      const fraud = ["unauthorized_transaction", "card_present_fraud", "card_not_present_fraud"]
        .includes(a.dispute_category as string);
      const shared = a.pin_compromised === "yes_shared";
      const added = addRecord(db, "debit_card_disputes", id, {
        dispute_id: id,
        transaction_id: a.transaction_id,
        account_id: a.account_id,
        card_id: a.card_id,
        user_id: a.user_id,
        dispute_category: a.dispute_category,
        transaction_date: a.transaction_date,
        discovery_date: a.discovery_date,
        disputed_amount: amount,
        transaction_type: a.transaction_type,
        card_in_possession: a.card_in_possession,
        pin_compromised: a.pin_compromised,
        contacted_merchant: a.contacted_merchant,
        police_report_filed: a.police_report_filed,
        written_statement_provided: a.written_statement_provided,
        provisional_credit_eligible: a.provisional_credit_eligible,
        provisional_credit_issued: a.provisional_credit_eligible,
        provisional_credit_amount: truthy(a.provisional_credit_eligible) ? amount : null,
        customer_max_liability_amount: a.customer_max_liability_amount,
        card_action: a.card_action,
        is_fraud_category: fraud,
        pin_shared_voluntarily: shared,
        submitted_at: TODAY,
        status: "OPEN",
      });
      if (!added) return "Error: Dispute may have already been filed for this transaction.";
      const out = [
        `Dispute ID: ${id}`,
        `Transaction: ${S(a.transaction_id)}`,
        `Account: ${S(a.account_id)}`,
        `Category: ${titled(a.dispute_category as string)}`,
        `Disputed Amount: $${money(amount)}`,
        `Card Action: ${titled(a.card_action as string)}`,
        truthy(a.provisional_credit_eligible)
          ? `Provisional Credit: ISSUED - $${
            money(amount)
          } credited within 10 business days per Regulation E.`
          : "Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.",
      ];
      if (shared) {
        out.push(
          "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.",
        );
      }
      if (fraud && !truthy(a.police_report_filed) && amount > 500) {
        out.push(
          "RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.",
        );
      }
      return out.join("\n");
    },
  },
  {
    name: "set_debit_card_recurring_block_7382",
    mutates: true,
    description: "Block or allow all recurring payments on a debit card.",
    params: [
      p("card_id", "string", "The debit card"),
      p("block_recurring", "boolean", "True blocks recurring charges, False allows them"),
    ],
    run(a, db) {
      if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id";
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card || !truthy(card)) return `Error: Debit card '${S(a.card_id)}' not found.`;
      const status = S(get(card, "status", "")).toUpperCase();
      if (status !== "ACTIVE") {
        return `Error: Cannot update recurring block settings for a card with status '${status}'. Card must be ACTIVE.`;
      }
      writable(db, "debit_cards")![a.card_id as string]!.recurring_blocked = a.block_recurring;
      return truthy(a.block_recurring)
        ? `Recurring payments BLOCKED for debit card ${
          S(a.card_id)
        }.\nAll recurring/subscription charges will be declined.\nOne-time purchases are not affected.\nThis change takes effect within 24 hours.`
        : `Recurring payments UNBLOCKED for debit card ${
          S(a.card_id)
        }.\nRecurring/subscription charges will now be allowed.\nThis change takes effect within 24 hours.`;
    },
  },
  {
    name: "get_debit_dispute_status_7483",
    mutates: false,
    description: "List the debit-card disputes a customer has filed.",
    params: [p("user_id", "string", "The customer's id")],
    run(a, db) {
      if (!truthy(a.user_id)) return "Error: Missing required parameter: user_id";
      const text = queryText(db, "debit_card_disputes", `{"user_id": "${S(a.user_id)}"}`);
      return [
        "Debit card dispute history retrieved successfully.",
        "",
        "Executed: get_debit_dispute_status_7483",
        `Debit card dispute history for user ${S(a.user_id)}:`,
        found(text) ? text : "\nNo debit card disputes found for this user.",
      ].join("\n");
    },
  },
  {
    name: "order_debit_card_5739",
    mutates: true,
    description: "Order a new debit card for a checking account.",
    params: [
      p("account_id", "string", "The checking account"),
      p("user_id", "string", "The customer's id"),
      p("delivery_option", "string", "STANDARD, EXPEDITED or RUSH"),
      p("delivery_fee", "number", "The delivery fee, in dollars"),
      p("card_design", "string", "CLASSIC, PREMIUM or CUSTOM"),
      p("design_fee", "number", "The design fee, in dollars"),
      p("shipping_address", "string", "Where to send the card"),
      p("excess_replacement_fee", "number", "A fee for too many replacements, if any", {
        fallback: null,
      }),
    ],
    run(a, db) {
      const delivery = a.delivery_fee === null ? null : toFloat(a.delivery_fee);
      if (delivery === undefined) return "Error: delivery_fee must be a number.";
      const design = a.design_fee === null ? null : toFloat(a.design_fee);
      if (design === undefined) return "Error: design_fee must be a number.";
      const excess = toFloat(truthy(a.excess_replacement_fee) ? a.excess_replacement_fee : 0) ?? 0;
      const given = [
        a.account_id,
        a.user_id,
        a.delivery_option,
        delivery !== null,
        a.card_design,
        design !== null,
        a.shipping_address,
      ];
      if (!given.every(truthy)) {
        return "Error: Missing required parameters. Required: account_id, user_id, delivery_option, delivery_fee, card_design, design_fee, shipping_address.";
      }
      const deliveries = ["STANDARD", "EXPEDITED", "RUSH"];
      const option = S(a.delivery_option).toUpperCase();
      if (!deliveries.includes(option)) {
        return `Error: Invalid delivery_option. Must be one of: ${list(deliveries)}`;
      }
      const designs = ["CLASSIC", "PREMIUM", "CUSTOM"];
      const cardDesign = S(a.card_design).toUpperCase();
      if (!designs.includes(cardDesign)) {
        return `Error: Invalid card_design. Must be one of: ${list(designs)}`;
      }
      const account = recordOf(db, "accounts", a.account_id);
      const accountId = S(a.account_id);
      if (!account) return `Error: Account '${accountId}' not found.`;
      if (get(account, "class") !== "checking") {
        return `Error: Debit cards can only be ordered for checking accounts. Account '${accountId}' is a ${
          S(get(account, "class"))
        } account.`;
      }
      if (get(account, "status") !== "OPEN") {
        return `Error: Account must be OPEN. Account '${accountId}' has status: ${
          S(get(account, "status"))
        }`;
      }
      if (get(account, "user_id") !== a.user_id) {
        return `Error: Account '${accountId}' does not belong to user '${S(a.user_id)}'.`;
      }
      const holdings = toFloat(S(get(account, "current_holdings", "0")).replaceAll(",", "")) ?? 0;
      if (holdings < 25) {
        return `Error: Account must have a minimum balance of $25. Current balance: $${
          money(holdings)
        }`;
      }
      for (const order of Object.values(rows(db, "debit_card_orders") ?? {})) {
        if (get(order, "account_id") === a.account_id && get(order, "status") === "PENDING") {
          return `Error: There is already a pending debit card order for account '${accountId}'.`;
        }
      }
      const cards = Object.values(rows(db, "debit_cards") ?? {});
      if (
        cards.some((c) => get(c, "account_id") === a.account_id && get(c, "status") === "ACTIVE")
      ) {
        return `Error: Account '${accountId}' already has an active debit card. Maximum 1 active card per checking account.`;
      }
      const total = delivery! + design! + excess;
      if (total > 0 && holdings < total) {
        return `Error: Insufficient funds for fees. Total fees: $${
          money(total)
        }. Current balance: $${money(holdings)}`;
      }
      const times: Record<string, string> = {
        STANDARD: "7-10 business days",
        EXPEDITED: "3-5 business days",
        RUSH: "1-2 business days",
      };
      const orderId = ids.debitCardOrder(accountId, S(a.user_id), option);
      const added = addRecord(db, "debit_card_orders", orderId, {
        order_id: orderId,
        account_id: a.account_id,
        user_id: a.user_id,
        delivery_option: option,
        card_design: cardDesign,
        shipping_address: a.shipping_address,
        delivery_fee: delivery,
        design_fee: design,
        excess_replacement_fee: excess,
        total_fee: total,
        order_date: TODAY,
        expected_delivery: times[option],
        status: "PENDING",
      });
      if (!added) return "Error: Failed to create debit card order. Order may already exist.";
      const feeParts = (sep: string) => {
        const parts: string[] = [];
        if (delivery! > 0) parts.push(`Delivery${sep} $${pyFloat(delivery!)}`);
        if (design! > 0) parts.push(`Design${sep} $${pyFloat(design!)}`);
        if (excess > 0) parts.push(`Excess Replacement${sep} $${pyFixed(excess, 0)}`);
        return parts.join(", ");
      };
      if (total > 0) {
        writable(db, "accounts")![accountId]!.current_holdings = money(holdings - total);
        const feeId = `btxn_dcfee_${orderId.slice(-8)}`;
        addRecord(db, "bank_account_transaction_history", feeId, {
          transaction_id: feeId,
          account_id: a.account_id,
          date: TODAY,
          description: `DEBIT CARD ORDER FEE - ${feeParts("")}`,
          amount: -total,
          type: "debit_card_fee",
          status: "posted",
        });
      }
      const cardId = ids.debitCard(accountId, S(a.user_id), TODAY);
      const seed = `card_details:${cardId}`;
      const digits = (hex: string) => hex.replace(/[^0-9]/g, "");
      const last4 = digits(deterministicId(`${seed}:last4`, 8)).slice(0, 4).padStart(4, "0");
      const cvv = digits(deterministicId(`${seed}:cvv`, 6)).slice(0, 3).padStart(3, "0");
      const user = recordOf(db, "users", a.user_id);
      const holder = user ? S(get(user, "name", "CARDHOLDER")).toUpperCase() : "CARDHOLDER";
      const same = cards.filter((c) => get(c, "account_id") === a.account_id);
      const closed = same.find((c) => get(c, "status") === "CLOSED");
      let reason: unknown;
      if (closed) {
        const r = get(closed, "closure_reason", "first_card");
        reason = ["lost", "stolen", "fraud", "fraud_suspected"].includes(r as string)
          ? (r === "fraud_suspected" ? "fraud" : r)
          : "first_card";
      } else reason = same.length > 0 ? "first_card" : "new_account";
      addRecord(db, "debit_cards", cardId, {
        card_id: cardId,
        account_id: a.account_id,
        user_id: a.user_id,
        cardholder_name: holder,
        last_4_digits: last4,
        cvv,
        status: "PENDING",
        issue_date: TODAY,
        expiration_date: "11/30/2029",
        card_design: cardDesign,
        issue_reason: reason,
      });
      const out = [
        "Debit Card Order Confirmed",
        `Order ID: ${orderId}`,
        `Card ID: ${cardId}`,
        `Linked Account: ${accountId}`,
        `Delivery Option: ${option}`,
        `Card Design: ${cardDesign}`,
        `Shipping Address: ${S(a.shipping_address)}`,
        `Expected Delivery: ${times[option]}`,
        "",
        "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
      ];
      if (total > 0) {
        out.push(
          `Total Fees: $${money(total)} (${feeParts(":")}) - CHARGED to account ${accountId}`,
          `New Account Balance: $${money(holdings - total)}`,
        );
      } else out.push("Total Fees: $0 (No additional charges)");
      return out.join("\n");
    },
  },
  {
    name: "activate_debit_card_8291",
    mutates: true,
    description:
      "Activate a first debit card of a checking account (issued as 'new_account' or 'first_card').",
    params: ACTIVATION_PARAMS,
    run(a, db) {
      const check = activationCheck(
        a,
        db,
        ["new_account", "first_card"],
        "activate_debit_card_8291",
      );
      if ("error" in check) return check.error;
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "ACTIVE",
        activated_date: TODAY,
      });
      const retired = retireOthers(db, a.card_id, get(check.card, "account_id"), {
        status: "DEACTIVATED",
        deactivated_date: TODAY,
        deactivation_reason: "New card activated",
      });
      const out = [
        "New Debit Card Activation Successful",
        `Card ID: ${S(a.card_id)}`,
        "Status: ACTIVE",
        `Activation Date: ${TODAY}`,
        "",
        "Your card is now ready to use at any ATM or point of sale terminal.",
        "For security, please sign the back of your card.",
      ];
      if (retired.length > 0) {
        out.push(`\nNote: Previous card(s) have been deactivated: ${retired.join(", ")}`);
      }
      return out.join("\n");
    },
  },
  {
    name: "activate_debit_card_8292",
    mutates: true,
    description: "Activate a replacement for a lost, stolen or compromised debit card.",
    params: ACTIVATION_PARAMS,
    run(a, db) {
      const check = activationCheck(a, db, ["lost", "stolen", "fraud"], "activate_debit_card_8292");
      if ("error" in check) return check.error;
      const reason = S(get(check.card, "issue_reason", "lost"));
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "ACTIVE",
        activated_date: TODAY,
      });
      const retired = retireOthers(db, a.card_id, get(check.card, "account_id"), {
        status: "DEACTIVATED",
        deactivated_date: TODAY,
        deactivation_reason: `Replacement card activated (${reason})`,
      });
      const out = [
        "Replacement Debit Card Activation Successful",
        `Card ID: ${S(a.card_id)}`,
        `Replacement Reason: ${titled(reason)}`,
        "Status: ACTIVE",
        `Activation Date: ${TODAY}`,
        "",
        "Your replacement card is now ready to use.",
        "",
        "IMPORTANT SECURITY REMINDERS:",
        "- Please review your recent transactions for any unauthorized charges",
        "- Report any suspicious activity immediately",
      ];
      if (reason === "fraud") {
        out.push("- Since fraud was suspected, we recommend changing your online banking password");
      }
      if (retired.length > 0) {
        out.push(`\nPrevious card(s) have been deactivated for security: ${retired.join(", ")}`);
      }
      return out.join("\n");
    },
  },
  {
    name: "activate_debit_card_8293",
    mutates: true,
    description:
      "Activate a reissued debit card (expired, damaged, upgraded or reissued by the bank).",
    params: ACTIVATION_PARAMS,
    run(a, db) {
      const check = activationCheck(
        a,
        db,
        ["expired", "damaged", "upgrade", "bank_reissue"],
        "activate_debit_card_8293",
      );
      if ("error" in check) return check.error;
      const reason = S(get(check.card, "issue_reason", "expired"));
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "ACTIVE",
        activated_date: TODAY,
      });
      const graced = retireOthers(db, a.card_id, get(check.card, "account_id"), {
        status: "GRACE_PERIOD",
        grace_period_ends: TODAY,
        deactivation_reason: `Reissued card activated (${reason})`,
      });
      const out = [
        "Reissued Debit Card Activation Successful",
        `Card ID: ${S(a.card_id)}`,
        `Reissue Reason: ${titled(reason)}`,
        "Status: ACTIVE",
        `Activation Date: ${TODAY}`,
        "",
        "Your reissued card is now ready to use.",
      ];
      if (graced.length > 0) {
        out.push(
          `\nNote: Your previous card(s) (${
            graced.join(", ")
          }) will remain active for 24 hours as a grace period.`,
          "After 24 hours, the old card(s) will be automatically deactivated.",
        );
      }
      if (reason === "expired" || reason === "bank_reissue") {
        out.push(
          "\nReminder: If your card number changed, please update any recurring payments with your new card details.",
        );
      }
      return out.join("\n");
    },
  },
  {
    name: "close_debit_card_4721",
    mutates: true,
    description: "Close a debit card for good.",
    params: [
      p("card_id", "string", "The debit card"),
      p(
        "reason",
        "string",
        "lost, stolen, fraud_suspected, damaged, no_longer_needed or account_closing",
      ),
    ],
    run(a, db) {
      if (!truthy(a.card_id) || !truthy(a.reason)) {
        return "Error: Missing required parameters. Required: card_id, reason.";
      }
      const reasons = [
        "lost",
        "stolen",
        "fraud_suspected",
        "damaged",
        "no_longer_needed",
        "account_closing",
      ];
      const reason = S(a.reason).toLowerCase();
      if (!reasons.includes(reason)) {
        return `Error: Invalid reason. Must be one of: ${list(reasons)}`;
      }
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      const previous = get(card, "status");
      if (!["ACTIVE", "PENDING"].includes(previous as string)) {
        return `Error: Debit card '${S(a.card_id)}' cannot be closed. Current status: ${
          S(previous)
        }. Only ACTIVE or PENDING cards can be closed.`;
      }
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "CLOSED",
        closed_date: TODAY,
        closure_reason: reason,
      });
      const out = [
        "Debit Card Closed Successfully",
        `Card ID: ${S(a.card_id)}`,
        `Previous Status: ${S(previous)}`,
        "New Status: CLOSED",
        `Closure Reason: ${titled(reason)}`,
        `Closure Date: ${TODAY}`,
        "",
      ];
      if (["lost", "stolen", "fraud_suspected"].includes(reason)) {
        out.push(
          "IMPORTANT: This card has been immediately deactivated for security.",
          "Any pending transactions may still be processed.",
        );
        if (reason === "fraud_suspected") {
          out.push(
            "Please advise the customer to review recent transactions and file disputes for any unauthorized charges.",
            "Also recommend changing their online banking password.",
          );
        }
      }
      out.push(
        "",
        "Note: This card cannot be reactivated. If the customer needs a new card, they can order one through the standard ordering process.",
        "Any recurring payments linked to this card will need to be updated with new payment information.",
      );
      return out.join("\n");
    },
  },
  {
    name: "freeze_debit_card_3892",
    mutates: true,
    description: "Freeze a debit card for now; it can be unfrozen later.",
    params: [p("card_id", "string", "The debit card")],
    run(a, db) {
      if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      if (get(card, "status") === "FROZEN") {
        return `Error: Debit card '${S(a.card_id)}' is already frozen.`;
      }
      if (get(card, "status") !== "ACTIVE") {
        return `Error: Debit card '${S(a.card_id)}' cannot be frozen. Current status: ${
          S(get(card, "status"))
        }. Only ACTIVE cards can be frozen.`;
      }
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "FROZEN",
        frozen_date: TODAY,
      });
      return [
        "Debit Card Frozen Successfully",
        `Card ID: ${S(a.card_id)}`,
        "Status: FROZEN",
        `Frozen Date: ${TODAY}`,
        "",
        "While frozen:",
        "- All new purchase transactions will be declined",
        "- Recurring payments and subscriptions will be declined",
        "- Pending transactions already authorized may still process",
        "",
        "To unfreeze, the customer can call customer service or use the mobile app.",
        "If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
      ].join("\n");
    },
  },
  {
    name: "unfreeze_debit_card_3893",
    mutates: true,
    description: "Unfreeze a frozen debit card.",
    params: [p("card_id", "string", "The debit card")],
    run(a, db) {
      if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      if (get(card, "status") === "ACTIVE") {
        return `Error: Debit card '${S(a.card_id)}' is already active.`;
      }
      if (get(card, "status") !== "FROZEN") {
        return `Error: Debit card '${S(a.card_id)}' cannot be unfrozen. Current status: ${
          S(get(card, "status"))
        }. Only FROZEN cards can be unfrozen.`;
      }
      const accountId = get(card, "account_id");
      const account = truthy(accountId) ? recordOf(db, "accounts", accountId) : undefined;
      if (account && get(account, "status") !== "OPEN") {
        return `Error: The linked checking account '${
          S(accountId)
        }' is no longer open. Card cannot be unfrozen.`;
      }
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        status: "ACTIVE",
        unfrozen_date: TODAY,
      });
      return [
        "Debit Card Unfrozen Successfully",
        `Card ID: ${S(a.card_id)}`,
        "Status: ACTIVE",
        `Unfrozen Date: ${TODAY}`,
        "",
        "The card is now active and ready to use immediately.",
        "All transactions will process normally.",
      ].join("\n");
    },
  },
  {
    name: "clear_debit_card_fraud_alert_4892",
    mutates: true,
    description: "Clear a fraud alert or a velocity block on a debit card.",
    params: [
      p("card_id", "string", "The debit card"),
      p(
        "reason",
        "string",
        "'customer_verified' (fraud alert) or 'velocity_clear' (velocity block)",
      ),
    ],
    run(a, db) {
      if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
      if (!truthy(a.reason)) return "Error: Missing required parameter: reason.";
      const reasons = ["customer_verified", "velocity_clear"];
      if (!reasons.includes(a.reason as string)) {
        return `Error: Invalid reason '${S(a.reason)}'. Must be one of: ${reasons.join(", ")}`;
      }
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      const draft = () => writable(db, "debit_cards")![a.card_id as string]!;
      if (a.reason === "velocity_clear") {
        if (!truthy(get(card, "velocity_blocked", false))) {
          return `Error: Debit card '${S(a.card_id)}' does not have an active velocity block.`;
        }
        Object.assign(draft(), { velocity_blocked: false, velocity_cleared_date: TODAY });
        return [
          "Velocity Block Cleared Successfully",
          `Card ID: ${S(a.card_id)}`,
          `Cleared Date: ${TODAY}`,
          "",
          "The card is now unblocked and ready for normal use.",
          "The velocity monitoring will continue - if the same unusual patterns recur,",
          "the card may be blocked again automatically.",
        ].join("\n");
      }
      if (!truthy(get(card, "fraud_alert_active", false))) {
        return `Error: Debit card '${S(a.card_id)}' does not have an active fraud alert.`;
      }
      if (get(card, "alert_source") === "bank_initiated") {
        return "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system and cannot be cleared by customer service agents. Please transfer the customer to the security team using transfer_to_human_agents.";
      }
      Object.assign(draft(), {
        fraud_alert_active: false,
        alert_source: null,
        fraud_alert_cleared_date: TODAY,
      });
      return [
        "Fraud Alert Cleared Successfully",
        `Card ID: ${S(a.card_id)}`,
        `Cleared Date: ${TODAY}`,
        "",
        "The fraud alert has been removed from the card.",
        "All transactions will process normally.",
        "",
        "Remind the customer to review recent transactions and report any unauthorized charges.",
      ].join("\n");
    },
  },
  {
    name: "reset_debit_card_pin_6284",
    mutates: true,
    description: "Set a new PIN for a customer who has forgotten theirs.",
    params: [
      p("card_id", "string", "The debit card"),
      p("last_4_digits", "string", "The card number's last 4 digits (to verify)"),
      p("new_pin", "string", "The new 4-digit PIN"),
    ],
    run(a, db) {
      if (![a.card_id, a.last_4_digits, a.new_pin].every(truthy)) {
        return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin.";
      }
      if (!isDigits(a.last_4_digits) || (a.last_4_digits as string).length !== 4) {
        return "Error: Last 4 digits must be exactly 4 digits.";
      }
      const pin = pinProblem(a.new_pin);
      if (pin) return `Error: ${pin}`;
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      if (get(card, "last_4_digits") !== a.last_4_digits) {
        return "Error: Card verification failed. The last 4 digits do not match our records.";
      }
      if (get(card, "status") !== "ACTIVE") {
        return `Error: Cannot reset PIN. Card status is ${
          S(get(card, "status"))
        }. Only ACTIVE cards can have their PIN reset.`;
      }
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        pin_last_changed: TODAY,
        pin_locked: false,
        pin_attempts_remaining: 3,
      });
      return [
        "Debit Card PIN Reset Successfully",
        `Card ID: ${S(a.card_id)}`,
        `PIN Changed: ${TODAY}`,
        "",
        "The new PIN is effective immediately.",
        "Your card has been unlocked and is ready to use.",
        "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
        "",
        "Security reminder: Never share your PIN with anyone.",
      ].join("\n");
    },
  },
  {
    name: "change_debit_card_pin_6285",
    mutates: true,
    description: "Change a debit card's PIN when the customer knows the current one.",
    params: [
      p("card_id", "string", "The debit card"),
      p("current_pin", "string", "The current 4-digit PIN"),
      p("new_pin", "string", "The new 4-digit PIN"),
    ],
    run(a, db) {
      if (![a.card_id, a.current_pin, a.new_pin].every(truthy)) {
        return "Error: Missing required parameters. Required: card_id, current_pin, new_pin.";
      }
      if (!isDigits(a.current_pin) || (a.current_pin as string).length !== 4) {
        return "Error: Current PIN must be exactly 4 digits.";
      }
      const pin = pinProblem(a.new_pin);
      if (pin) return `Error: ${pin}`;
      if (a.current_pin === a.new_pin) return "Error: New PIN must be different from current PIN.";
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      if (get(card, "status") !== "ACTIVE") {
        return `Error: Cannot change PIN. Card status is ${
          S(get(card, "status"))
        }. Only ACTIVE cards can have their PIN changed.`;
      }
      writable(db, "debit_cards")![a.card_id as string]!.pin_last_changed = TODAY;
      return [
        "Debit Card PIN Changed Successfully",
        `Card ID: ${S(a.card_id)}`,
        `PIN Changed: ${TODAY}`,
        "",
        "The new PIN is effective immediately.",
        "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
        "",
        "Security reminder: Never share your PIN with anyone.",
      ].join("\n");
    },
  },
  {
    name: "get_debit_cards_by_account_id_7823",
    mutates: false,
    description: "List the debit cards of a checking account, newest first.",
    params: [p("account_id", "string", "The checking account")],
    run(a, db) {
      if (!truthy(a.account_id)) return "Error: Missing required parameter 'account_id'.";
      const account = recordOf(db, "accounts", a.account_id);
      if (!account) return `Error: Account '${S(a.account_id)}' not found.`;
      const cls = S(get(account, "class", "")).toLowerCase();
      if (cls !== "checking" && cls !== "business_checking") {
        return `Error: Account '${
          S(a.account_id)
        }' is not a checking account. Debit cards are only available for checking accounts.`;
      }
      const cards: BankRecord[] = [];
      for (const [id, card] of Object.entries(rows(db, "debit_cards") ?? {})) {
        if (get(card, "account_id") !== a.account_id) continue;
        const info = renamed({ card_id: id, ...card }, "last_4_digits", "card_number_last_4");
        const dated = Object.hasOwn(info, "issue_date") && !Object.hasOwn(info, "date_issued")
          ? renamed(info, "issue_date", "date_issued")
          : Object.hasOwn(info, "created_date") && !Object.hasOwn(info, "date_issued")
          ? renamed(info, "created_date", "date_issued")
          : info;
        cards.push(dated);
      }
      if (cards.length === 0) return `No debit cards found for account '${S(a.account_id)}'.`;
      const key = (c: BankRecord) => S(get(c, "date_issued") || "");
      cards.sort((x, y) => (key(x) < key(y) ? 1 : key(x) > key(y) ? -1 : 0));
      return pyJsonDumps(cards, { indent: 2 });
    },
  },
  {
    name: "request_temporary_debit_card_limit_increase_8374",
    mutates: true,
    description: "Raise a debit card's daily ATM or purchase limit for 24 hours.",
    params: [
      p("card_id", "string", "The debit card"),
      p("limit_type", "string", "'atm' or 'purchase'"),
      p("new_limit", "integer", "The temporary limit asked for, in dollars"),
    ],
    run(a, db) {
      if (!truthy(a.card_id)) return "Error: Missing required parameter: card_id.";
      if (!truthy(a.limit_type)) return "Error: Missing required parameter: limit_type.";
      if (a.limit_type !== "atm" && a.limit_type !== "purchase") {
        return `Error: Invalid limit_type '${S(a.limit_type)}'. Must be 'atm' or 'purchase'.`;
      }
      if (a.new_limit === null) return "Error: Missing required parameter: new_limit.";
      const asFloat = toFloat(a.new_limit);
      if (asFloat === undefined) {
        return `Error: new_limit must be an integer, got '${S(a.new_limit)}'.`;
      }
      if (!Number.isInteger(asFloat)) {
        return `Error: new_limit must be an integer, got '${pyFloat(asFloat)}'.`;
      }
      const wanted = asFloat;
      if (wanted <= 0) return "Error: new_limit must be a positive amount.";
      const card = recordOf(db, "debit_cards", a.card_id);
      if (!card) return `Error: Debit card '${S(a.card_id)}' not found.`;
      if (get(card, "status") !== "ACTIVE") {
        return `Error: Debit card '${S(a.card_id)}' is not active. Current status: ${
          S(get(card, "status"))
        }. Only ACTIVE cards can have limit increases.`;
      }
      const accountId = get(card, "account_id");
      const account = truthy(accountId) ? recordOf(db, "accounts", accountId) : undefined;
      if (!account) {
        return `Error: Could not find linked account for debit card '${S(a.card_id)}'.`;
      }
      if (get(account, "status") !== "OPEN") {
        return `Error: The linked account '${
          S(accountId)
        }' is not in good standing. Account status: ${S(get(account, "status"))}.`;
      }
      const opened = get(account, "date_opened");
      if (truthy(opened)) {
        const age = ageDays(opened, true);
        if (age !== undefined && age < 60) {
          return `Error: Account must be at least 60 days old for a temporary limit increase. Account age: ${age} days.`;
        }
      }
      const type = a.limit_type as "atm" | "purchase";
      const field = type === "atm" ? "daily_atm_limit" : "daily_purchase_limit";
      const name = type === "atm" ? "Daily ATM Withdrawal Limit" : "Daily Purchase Limit";
      let current = get(card, field) as number | null;
      let currentIsInt = current !== null && Number.isInteger(current);
      if (type === "atm" && current === null) {
        const level = S(get(account, "level", "")).toLowerCase();
        if (level.includes("light green")) {
          return "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety reasons. The customer may request the parent/guardian to withdraw cash from their own account if needed.";
        }
        current = Object.hasOwn(DEFAULT_ATM_LIMITS, level) ? DEFAULT_ATM_LIMITS[level]! : null;
        currentIsInt = true;
        if (current === null) {
          return `Error: Could not determine the default ATM limit for account type '${
            S(get(account, "level"))
          }'. Please verify the account type.`;
        }
      }
      if (current === null) {
        return `Error: The card does not have a ${name.toLowerCase()} configured. This may be a restricted account type where limits are set by account policy and cannot be modified.`;
      }
      const shown = (n: number) => (currentIsInt ? String(n) : pyFloat(n));
      const max = Math.trunc(current * 1.5);
      if (wanted > max) {
        return `Error: Requested limit $${wanted} exceeds the maximum allowed temporary increase. Maximum temporary limit is $${max} (150% of current $${
          shown(current)
        } limit).`;
      }
      if (wanted <= current) {
        return `Error: Requested limit $${wanted} is not higher than the current limit of $${
          shown(current)
        }.`;
      }
      Object.assign(writable(db, "debit_cards")![a.card_id as string]!, {
        [field]: wanted,
        [`temporary_${type}_limit_increase`]: true,
        [`original_${type}_limit`]: current,
        [`temporary_${type}_limit_expires`]: TODAY,
      });
      return [
        `Temporary ${name} Increase Granted Successfully`,
        `Card ID: ${S(a.card_id)}`,
        `Previous Limit: $${shown(current)}`,
        `New Temporary Limit: $${wanted}`,
        `Increase Amount: $${shown(wanted - current)}`,
        "",
        "Important Information:",
        "- This temporary increase expires in 24 hours",
        `- After expiration, the limit will revert to $${shown(current)}`,
        "- Only one temporary increase is allowed per 24-hour period",
        "",
        "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
        "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
        "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
      ].join("\n");
    },
  },
];

const DEFAULT_ATM_LIMITS: Record<string, number> = {
  "blue account": 500,
  "green account": 600,
  "light blue account": 400,
  "green fee-free account": 500,
  "evergreen account": 750,
  "bluest account": 1500,
  "dark green account": 300,
  "gold years account": 600,
  "purple account": 1000,
};

/** `info[to] = info.pop(from)`: the key moves to the end, as a Python dict's does. */
function renamed(info: BankRecord, from: string, to: string): BankRecord {
  if (!Object.hasOwn(info, from) || Object.hasOwn(info, to)) return info;
  const { [from]: value, ...rest } = info;
  return { ...rest, [to]: value };
}
