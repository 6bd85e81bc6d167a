/**
 * The banking tools both sides always have: the agent's lookups, e-mail change,
 * identity log, transfer, and the discoverable-tool gates (unlock, call, give,
 * list); the caller's card application, referral, transaction, transfer request
 * and discoverable-tool calls.
 *
 * Unlocked agent tools are the call's own state, not the bank's (the reference
 * keeps them in memory): a per-trial counter per tool. So is the set of read-only
 * tools whose calls are logged (the scenario's gold reads; see init_functions.ts).
 *
 * @module
 */
import { z } from "zod";
import type { Db, ToolDef } from "../domain.ts";
import { bankTool } from "./bank_tool.ts";
import { bankAccountTools } from "./bank_account_tools.ts";
import { creditCardTools } from "./credit_card_tools.ts";
import { debitCardTools } from "./debit_card_tools.ts";
import {
  bindArguments,
  describeForAgent,
  type DiscoverableTool,
  pyTypeName,
  TODAY,
} from "./discoverable.ts";
import { ids } from "./ids.ts";
import { pyFixed, pyFloat, pyJsonDumps } from "./python_format.ts";
import { addRecord, queryText, updateRecord } from "./tables.ts";
import { userDiscoverableTools } from "./user_discoverable_tools.ts";
import { parsePythonJson } from "./python_json.ts";

/** Every agent discoverable tool, by name. */
export const AGENT_DISCOVERABLE: ReadonlyMap<string, DiscoverableTool> = new Map(
  [...creditCardTools, ...bankAccountTools, ...debitCardTools].map((t) => [t.name, t]),
);
/** Every caller discoverable tool, by name. */
export const USER_DISCOVERABLE: ReadonlyMap<string, DiscoverableTool> = new Map(
  userDiscoverableTools.map((t) => [t.name, t]),
);

/** The counter that marks an agent tool unlocked in this call. */
export const unlockedCounter = (name: string) => `banking:unlocked:${name}`;
/** The counter that marks a read-only agent tool whose calls are logged. */
export const readLogCounter = (name: string) => `banking:read_log:${name}`;

export const TRANSFER_REASONS = [
  "fraud_or_security_concern",
  "account_closure_request",
  "deceased_account_holder",
  "legal_or_regulatory_matter",
  "account_ownership_dispute",
  "complex_billing_dispute",
  "abusive_customer_behavior",
  "third_party_inquiry",
  "technical_system_error",
  "unconfirmed_external_communication",
  "customer_demands_after_unavailable_offer_refusal",
  "kb_search_unsuccessful_customer_requests_transfer",
  "specialized_department_required",
  "accessibility_or_special_needs",
  "customer_frustrated_demands_human",
  "supervisor_request_service_complaint",
  "customer_requests_human_no_specific_reason",
  "request_completed_customer_wants_human_followup",
  "other",
];

const userQuery = (field: string) => (db: Db, value: string) =>
  queryText(db, "users", `{"${field}": "${value}"}`);

const text = (description: string) => z.string().describe(description);
const jsonArgs = z.string().default("{}").describe(
  'The tool\'s arguments as a JSON object, e.g. \'{"user_id": "abc123"}\'',
);

export const agentTools: ToolDef[] = [
  bankTool({
    name: "transfer_to_human_agents",
    side: "agent",
    kind: "write",
    description: "Hand the customer over to a human agent. Look the right reason code up in " +
      "the knowledge base first.",
    args: {
      summary: text("The customer's issue and what was tried."),
      reason: z.string().default("other").describe("The reason code for the transfer."),
    },
    run: ({ reason }) =>
      TRANSFER_REASONS.includes(reason)
        ? `Transfer successful (reason: ${reason}). A human agent will assist you shortly.`
        : `Error: Invalid transfer reason '${reason}'. Must be one of: ${
          TRANSFER_REASONS.join(", ")
        }`,
  }),
  bankTool({
    name: "get_current_time",
    side: "agent",
    kind: "read",
    description: "The current time, for stamping an identity verification.",
    args: {},
    run: () => "The current time is 2025-11-14 03:40:00 EST.",
  }),
  bankTool({
    name: "get_user_information_by_id",
    side: "agent",
    kind: "read",
    description: "A customer's details (birth date, email, phone, address) by user id.",
    args: { user_id: text("The customer's user id.") },
    run: ({ user_id }, db) => userQuery("user_id")(db, user_id),
  }),
  bankTool({
    name: "get_user_information_by_name",
    side: "agent",
    kind: "read",
    description: "A customer's details by their name (case-sensitive).",
    args: { customer_name: text("The customer's name.") },
    run: ({ customer_name }, db) => userQuery("name")(db, customer_name),
  }),
  bankTool({
    name: "get_user_information_by_email",
    side: "agent",
    kind: "read",
    description: "A customer's details by their email.",
    args: { email: text("The customer's email.") },
    run: ({ email }, db) => userQuery("email")(db, email),
  }),
  bankTool({
    name: "change_user_email",
    side: "agent",
    kind: "write",
    description: "Change a customer's email address.",
    args: { user_id: text("The customer's user id."), new_email: text("The new address.") },
    run: ({ user_id, new_email }, db) =>
      updateRecord(db, "users", user_id, { email: new_email })
        ? `Email updated successfully.\n  - User ID: ${user_id}\n  - New Email: ${new_email}`
        : `Error: User with ID '${user_id}' not found.`,
  }),
  bankTool({
    name: "get_referrals_by_user",
    side: "agent",
    kind: "read",
    description: "The referrals a customer has made.",
    args: { user_id: text("The referrer's user id.") },
    run: ({ user_id }, db) => queryText(db, "referrals", `{"referrer_id": "${user_id}"}`),
  }),
  bankTool({
    name: "get_credit_card_transactions_by_user",
    side: "agent",
    kind: "read",
    description: "A customer's credit-card transactions.",
    args: { user_id: text("The customer's user id.") },
    run: ({ user_id }, db) =>
      queryText(db, "credit_card_transaction_history", `{"user_id": "${user_id}"}`),
  }),
  bankTool({
    name: "get_credit_card_accounts_by_user",
    side: "agent",
    kind: "read",
    description: "A customer's credit-card accounts: card type, opening date, balance, rewards.",
    args: { user_id: text("The customer's user id.") },
    run: ({ user_id }, db) => queryText(db, "credit_card_accounts", `{"user_id": "${user_id}"}`),
  }),
  bankTool({
    name: "log_verification",
    side: "agent",
    kind: "write",
    description: "Record that a customer's identity was verified (2 of: birth date, email, " +
      "phone, address).",
    args: {
      name: text("The customer's full name."),
      user_id: text("The customer's user id."),
      address: text("Their address."),
      email: text("Their email."),
      phone_number: text("Their phone number."),
      date_of_birth: text("Their birth date, MM/DD/YYYY."),
      time_verified: text("When, e.g. '2025-11-14 03:40:00 EST'."),
    },
    run(a, db) {
      const id = ids.verification(a.user_id, a.time_verified);
      const added = addRecord(db, "verification_history", id, {
        name: a.name,
        user_id: a.user_id,
        address: a.address,
        email: a.email,
        phone_number: a.phone_number,
        date_of_birth: a.date_of_birth,
        time_verified: a.time_verified,
      });
      return added
        ? `Verification logged successfully.\n  - User: ${a.name} (ID: ${a.user_id})\n  - Verified at: ${a.time_verified}`
        : "Failed to log verification: Record may already exist.";
    },
  }),
  bankTool({
    name: "give_discoverable_user_tool",
    side: "agent",
    kind: "write",
    description: "Hand the customer a tool to perform an action themselves, where the " +
      "knowledge base says they should.",
    args: {
      discoverable_tool_name: text("The tool's name."),
      arguments: jsonArgs,
    },
    run({ discoverable_tool_name: name, arguments: json }, db) {
      const tool = USER_DISCOVERABLE.get(name);
      if (!tool) return `Error: Unknown discoverable tool '${name}'.`;
      const parsed = parsePythonJson(json, false);
      if (!parsed.ok) return `Error: Invalid JSON in arguments: ${parsed.error}`;
      const args = parsed.value;
      if (typeof args !== "object" || args === null) {
        return `Error: Invalid JSON in arguments: not an object (${pyTypeName(args)})`;
      }
      const keys = Array.isArray(args) ? args.map(String) : Object.keys(args);
      for (const key of keys) {
        if (!tool.params.some((p) => p.name === key)) {
          return `Error: Unexpected parameter: ${key}`;
        }
      }
      addRecord(db, "user_discoverable_tools", ids.userDiscoverableTool(name), {
        tool_name: name,
        status: "GIVEN",
      });
      const shown = keys.length > 0 ? pyJsonDumps(args, { indent: 2 }) : "(no arguments)";
      return `Tool given to user: ${name}\nDescription: ${tool.description}\nArguments: ${shown}\n\nThe user can now execute this action by calling \`call_discoverable_user_tool\` with discoverable_tool_name='${name}' and the same arguments.`;
    },
  }),
  bankTool({
    name: "unlock_discoverable_agent_tool",
    side: "agent",
    kind: "write",
    description: "Unlock a specialised internal tool the knowledge base names, to call it " +
      "with call_discoverable_agent_tool.",
    args: { agent_tool_name: text("The tool's name, e.g. 'calculate_apr_adjustment_7842'.") },
    run({ agent_tool_name: name }, _db, ctx) {
      const tool = AGENT_DISCOVERABLE.get(name);
      if (!tool) return `Error: Unknown agent tool '${name}'. This tool is not available.`;
      if (ctx.count(unlockedCounter(name)) === 0) ctx.next(unlockedCounter(name));
      return `Tool unlocked: ${name}\nDescription: ${tool.description}\n\n${
        describeForAgent(tool)
      }\n\nYou can now use this tool by calling \`call_discoverable_agent_tool\` with agent_tool_name='${name}' and the required arguments.`;
    },
  }),
  bankTool({
    name: "call_discoverable_agent_tool",
    side: "agent",
    kind: "write",
    description: "Call an internal tool unlocked before, with its arguments as JSON.",
    args: { agent_tool_name: text("The tool's name."), arguments: jsonArgs },
    run({ agent_tool_name: name, arguments: json }, db, ctx) {
      const tool = AGENT_DISCOVERABLE.get(name);
      if (!tool) return `Error: Unknown agent tool '${name}'. This tool is not available.`;
      if (ctx.count(unlockedCounter(name)) === 0) {
        return `Error: Tool '${name}' has not been unlocked. You must first use \`unlock_discoverable_agent_tool\` to unlock this tool before calling it.`;
      }
      const parsed = parsePythonJson(json, true);
      if (!parsed.ok) return `Error: Invalid JSON in arguments: ${parsed.error}`;
      const bound = bindArguments(tool, parsed.value, "KnowledgeTools");
      if (!bound.ok) return `Error: Invalid arguments: ${bound.error}`;
      const result = tool.run(bound.args, db, ctx);
      if (tool.mutates || ctx.count(readLogCounter(name)) > 0) {
        addRecord(db, "agent_discoverable_tools", ids.agentDiscoverableTool(name), {
          tool_name: name,
          status: "CALLED",
        });
      }
      return result;
    },
  }),
  bankTool({
    name: "list_discoverable_agent_tools",
    side: "agent",
    kind: "read",
    description: "The internal tools you have called so far.",
    args: {},
    run(_args, db) {
      const result = queryText(db, "agent_discoverable_tools", "{}");
      return result.includes("No results found")
        ? "No agent tools have been called yet. Search the knowledge base to discover available tools."
        : `Your called agent tools:\n${result}`;
    },
  }),
];

const CARD_TYPES = [
  "Bronze Rewards Card",
  "Business Bronze Rewards Card",
  "Business Gold Rewards Card",
  "Business Platinum Rewards Card",
  "Business Silver Rewards Card",
  "Crypto-Cash Back",
  "Diamond Elite Card",
  "EcoCard",
  "Gold Rewards Card",
  "Green Rewards Card",
  "Platinum Rewards Card",
  "Silver Rewards Card",
  "Silver Zoom Card",
];

/** Cash-back percent by card and category (`default` for the rest). */
const REWARDS: Record<string, Record<string, number>> = {
  "Bronze Rewards Card": { default: 1 },
  "Silver Rewards Card": { Travel: 4, Software: 4, default: 1 },
  "Gold Rewards Card": { default: 2.5 },
  "Platinum Rewards Card": { default: 10 },
  "Business Bronze Rewards Card": { default: 1 },
  "Business Silver Rewards Card": { Travel: 10, Software: 10, default: 1 },
  "Green Rewards Card": { Sustainable: 3, default: 1 },
  "Business Gold Rewards Card": { Operations: 2.5, default: 1 },
  "Business Platinum Rewards Card": { Travel: 4, Software: 4, Media: 4, default: 1.5 },
  "Silver Zoom Card": { Transportation: 3, default: 1 },
  "Diamond Elite Card": { default: 5 },
  EcoCard: { Green: 5, default: 1 },
  "Crypto-Cash Back": { default: 2 },
};

const pyList = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(", ")}]`;

export const userTools: ToolDef[] = [
  bankTool({
    name: "apply_for_credit_card",
    side: "user",
    kind: "write",
    description: "Apply for a credit card.",
    args: {
      card_type: text("The card applied for."),
      customer_name: text("Your full legal name."),
      annual_income: z.number().describe("Your annual income in USD."),
      rho_bank_subscription: z.boolean().default(false).describe(
        "Whether you have a Rho-Bank+ subscription.",
      ),
    },
    run(a, db) {
      if (!CARD_TYPES.includes(a.card_type)) {
        return `Error: Invalid card_type '${a.card_type}'. Must be one of: ${pyList(CARD_TYPES)}`;
      }
      const id = ids.application(
        a.card_type,
        a.customer_name,
        a.annual_income,
        a.rho_bank_subscription,
      );
      const added = addRecord(db, "credit_card_applications", id, {
        application_id: id,
        card_type: a.card_type,
        customer_name: a.customer_name,
        annual_income: a.annual_income,
        rho_bank_subscription: a.rho_bank_subscription,
        status: "PENDING",
        date: TODAY,
      });
      return added
        ? "Credit card application submitted:\nYour application has been successfully submitted. You will receive a decision within 5-7 business days via email."
        : `Failed to submit application: Record ID '${id}' may already exist.`;
    },
  }),
  bankTool({
    name: "submit_referral",
    side: "user",
    kind: "write",
    description: "Refer someone to open an account.",
    args: {
      user_id: text("Your user id (the referrer)."),
      account_type: text("The account you refer them to."),
    },
    run({ user_id, account_type }, db) {
      const id = ids.referral(user_id, account_type);
      const added = addRecord(db, "referrals", id, {
        referral_id: id,
        referrer_id: user_id,
        referred_account_type: account_type,
        referral_status: "NO_PROGRESS",
        date: TODAY,
      });
      return added
        ? `Referral request submitted successfully!\n  - Referral ID: ${id}\n  - Referrer ID: ${user_id}\n  - Account Type: ${account_type}\n  - Status: NO_PROGRESS\n  - Date: ${TODAY}\n\nShare your referral ID with the person you're referring. They will need to use this when applying for their account.`
        : `Failed to submit referral: Record ID '${id}' may already exist.`;
    },
  }),
  bankTool({
    name: "call_discoverable_user_tool",
    side: "user",
    kind: "write",
    description: "Perform an action the agent gave you, with its arguments as JSON.",
    args: {
      discoverable_tool_name: text("The tool's name."),
      arguments: jsonArgs,
    },
    run({ discoverable_tool_name: name, arguments: json }, db, ctx) {
      const tool = USER_DISCOVERABLE.get(name);
      if (!tool) return `Error: Unknown discoverable tool '${name}'.`;
      const parsed = parsePythonJson(json, true);
      if (!parsed.ok) return `Error: Invalid JSON in arguments: ${parsed.error}`;
      const args = parsed.value;
      const has = (k: string) =>
        typeof args === "object" && args !== null &&
        (Array.isArray(args) ? args.map(String).includes(k) : Object.hasOwn(args, k));
      for (const param of tool.params) {
        if (param.required && !has(param.name)) {
          return `Error: Missing required parameter: ${param.name}`;
        }
      }
      const keys = typeof args === "object" && args !== null
        ? (Array.isArray(args) ? args.map(String) : Object.keys(args))
        : [];
      for (const key of keys) {
        if (!tool.params.some((p) => p.name === key)) return `Error: Unexpected parameter: ${key}`;
      }
      const bound = bindArguments(tool, args, "KnowledgeUserTools");
      if (!bound.ok) {
        return `Error: Invalid arguments for tool '${name}': ${bound.error}`;
      }
      return tool.run(bound.args, db, ctx);
    },
  }),
  bankTool({
    name: "list_discoverable_user_tools",
    side: "user",
    kind: "read",
    description: "The tools the agent has given you.",
    args: {},
    run(_args, db) {
      const result = queryText(db, "user_discoverable_tools", "{}");
      return result.includes("No results found")
        ? "No tools have been given to you yet by the agent."
        : `Tools given to you by the agent:\n${result}`;
    },
  }),
  bankTool({
    name: "request_human_agent_transfer",
    side: "user",
    kind: "write",
    description: "Ask to be transferred to a human agent.",
    args: {},
    run(_args, db) {
      const existing = queryText(db, "human_transfer_requests", "{}");
      const count = existing.includes("No records found") || existing.includes("No results found")
        ? 1
        : existing.split("request_id").length;
      const id = `transfer_request_${count}`;
      addRecord(db, "human_transfer_requests", id, {
        request_id: id,
        request_number: count,
        requested_at: TODAY,
        status: "PENDING",
      });
      return `Transfer request #${count} submitted.\nThe agent will process your request.`;
    },
  }),
  bankTool({
    name: "submit_transaction",
    side: "user",
    kind: "write",
    description: "Make a purchase with one of your credit cards.",
    args: {
      user_id: text("Your user id."),
      credit_card_type: text("The card used, e.g. 'Gold Rewards Card'."),
      merchant_name: text("The merchant."),
      amount: z.number().describe("The amount in USD, e.g. 127.43."),
      category: text("The category, e.g. Groceries, Dining, Travel, Software."),
    },
    run(a, db) {
      if (!Object.hasOwn(REWARDS, a.credit_card_type)) {
        return `Error: Unknown credit card type '${a.credit_card_type}'. Available types: ${
          pyList(Object.keys(REWARDS))
        }`;
      }
      const id = ids.transaction(
        a.user_id,
        a.credit_card_type,
        a.merchant_name,
        a.amount,
        a.category,
      );
      const rates = REWARDS[a.credit_card_type]!;
      const rate = Object.hasOwn(rates, a.category) ? rates[a.category]! : rates.default!;
      const points = Math.trunc(a.amount * rate);
      const added = addRecord(db, "credit_card_transaction_history", id, {
        transaction_id: id,
        user_id: a.user_id,
        credit_card_type: a.credit_card_type,
        merchant_name: a.merchant_name,
        transaction_amount: `$${pyFixed(a.amount, 2)}`,
        transaction_date: TODAY,
        category: a.category,
        status: "COMPLETED",
        rewards_earned: `${points} points`,
      });
      if (!added) return `Failed to submit transaction: Record ID '${id}' may already exist.`;
      return `Transaction submitted successfully!\n  - Transaction ID: ${id}\n  - User ID: ${a.user_id}\n  - Card Type: ${a.credit_card_type}\n  - Merchant: ${a.merchant_name}\n  - Amount: $${
        pyFixed(a.amount, 2)
      }\n  - Category: ${a.category}\n  - Date: ${TODAY}\n  - Rewards Earned: ${points} points (${
        pyFloat(rate)
      }% cashback rate)\n`;
    },
  }),
];
