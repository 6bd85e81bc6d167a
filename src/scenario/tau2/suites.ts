/**
 * The four tau2 suites of a data root: `tau2_airline` (50), `tau2_retail` (114),
 * `tau2_telecom` and `tau2_telecom_workflow` (114 each; the same tasks and the
 * `tau2_telecom` domain, with the tech-support manual or the workflow as policy).
 *
 * "Today": tau2 tasks carry no date, so each suite fixes one. Airline uses
 * 2024-05-15, the day its policy calls "now" and the date its bookings are stamped
 * with. Retail tools never read a date; it shares the airline's (same benchmark
 * release). Telecom uses 2025-02-25, the fixed "today" of tau2's telecom domain,
 * which its tools use for suspensions and new bills.
 *
 * @module
 */
import type { Suite } from "../suite.ts";
import { numberedName, telecomName } from "./names.ts";
import { agentPrompt, telecomAgentPrompt, telecomPolicy } from "./prompts.ts";
import { tau2Suite, type Tau2SuiteConfig } from "./tau2_suite.ts";

export const TAU2_AIRLINE_TODAY = "2024-05-15";
export const TAU2_RETAIL_TODAY = "2024-05-15";
export const TAU2_TELECOM_TODAY = "2025-02-25";

const airline: Tau2SuiteConfig = {
  id: "tau2_airline",
  domain: "tau2_airline",
  today: TAU2_AIRLINE_TODAY,
  world: { db: "tau2_airline/db" },
  order: "numeric",
  policyFiles: ["tau2_airline/policy.md"],
  name: (id) => numberedName("tau2_airline", id),
  agentPrompt: ([policy]) => agentPrompt(policy!),
  stateSignal: "db_state_match",
  // The reference's airline scenarios leave the tasks' NL assertions out.
  nlAssertions: false,
  callerHasTools: false,
};

const retail: Tau2SuiteConfig = {
  id: "tau2_retail",
  domain: "tau2_retail",
  today: TAU2_RETAIL_TODAY,
  world: { db: "tau2_retail/db.json" },
  order: "numeric",
  policyFiles: ["tau2_retail/policy.md"],
  name: (id) => numberedName("tau2_retail", id),
  agentPrompt: ([policy]) => agentPrompt(policy!),
  stateSignal: "db_state_match",
  nlAssertions: true,
  callerHasTools: false,
};

function telecom(id: string, techSupportFile: string): Tau2SuiteConfig {
  return {
    id,
    domain: "tau2_telecom",
    today: TAU2_TELECOM_TODAY,
    world: { db: "tau2_telecom/db.json", user_db: "tau2_telecom/user_db.json" },
    order: "alphabetical",
    policyFiles: ["tau2_telecom/main_policy.md", `tau2_telecom/${techSupportFile}`],
    name: (taskId) => telecomName(id, taskId),
    agentPrompt: ([main, techSupport], domain) =>
      telecomAgentPrompt(
        telecomPolicy(main!, techSupport!),
        domain.tools.filter((t) => t.side === "agent").map((t) => t.name),
        domain.tools.filter((t) => t.side === "user").map((t) => t.name),
      ),
    stateSignal: "db_state_assertion",
    nlAssertions: true,
    callerHasTools: true,
  };
}

/** The four suites' configurations, in listing order (tests build suites of their own). */
export const configs: readonly Tau2SuiteConfig[] = [
  airline,
  retail,
  telecom("tau2_telecom", "tech_support_manual.md"),
  telecom("tau2_telecom_workflow", "tech_support_workflow.md"),
];

export const suites: Suite[] = configs.map((config) => tau2Suite(config));
