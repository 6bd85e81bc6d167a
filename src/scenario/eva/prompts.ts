/**
 * The two prompts of an eva scenario and the facts a scripted caller can give.
 * The agent gets the airline's own instructions verbatim plus our voice notes; the
 * caller's prompt is rendered from the record's goal, decision tree and facts.
 *
 * @module
 */
import { type CallerNeeds, firstPerson, limitsOf } from "../caller_needs.ts";
import type { EvaRecord } from "./record.ts";

/** The agent's system prompt: `role`, blank line, `instructions`, then our notes. */
export function evaAgentPrompt(role: string, instructions: string, today: string): string {
  return `${role.trim()}\n\n${instructions.trimEnd()}\n\n${agentNotes(today)}`;
}

/** Notes added to every eva agent prompt (reference-harness §2.2, in our words). */
export function agentNotes(today: string): string {
  return [
    "## Additional Notes to Follow",
    "",
    `- Today is ${today}.`,
    "- This is a phone call and everything you write is spoken aloud. Keep turns short, use plain sentences with no Markdown, lists, headings or emoji, say numbers, times and symbols the way a person would say them, and never invent facts that no tool gave you.",
    "- Spell codes such as confirmation numbers and flight numbers one character at a time, saying digits as words (Q, seven, R, two, M, A), and do not also say the code as a single word. A name may be said normally and then spelled if needed.",
    "- Journey ids (such as FL_SK100_20260101) are internal: never read them aloud. Describe a flight by its number, route, date and times.",
    "- Call end_conversation only when the caller has said they need nothing else and you have both said goodbye, or right after a transfer to a live agent has gone through.",
    "- Tell the caller something is done only when a tool call has actually done it; if a call failed or was not made, say so.",
  ].join("\n");
}

/** Digits as a caller says them when spelling a code. */
const DIGIT_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
];

/** `Q7R2MA` as spoken one character at a time: `Q, seven, R, two, M, A`. */
export function spellOut(code: string): string {
  return [...code].map((c) => {
    if (/\d/.test(c)) return DIGIT_WORDS[Number(c)]!;
    if (c === "-") return "dash";
    if (c === "_") return "underscore";
    if (c === ".") return "dot";
    if (c === "@") return "at";
    return c.toUpperCase();
  }).join(", ");
}

/**
 * The caller's facts as `label -> value` strings. Common identity facts get one
 * label whatever the record calls them (`confirmation number`, `last name`, ...), so
 * a scripted caller can answer the agent's questions.
 */
/**
 * What the scripted caller of an eva record wants and insists on: its goal and its
 * criteria in the first person, and the limits its must-haves state.
 */
export function evaCallerNeeds(record: EvaRecord): CallerNeeds {
  const tree = record.user_goal.decision_tree;
  return {
    goal: firstPerson(record.user_goal.high_level_user_goal.replace(/\s+/g, " ").trim()),
    must_have: tree.must_have_criteria.map(firstPerson),
    nice_to_have: tree.nice_to_have_criteria.map(firstPerson),
    unknown: [],
    limits: limitsOf(tree.must_have_criteria),
    preferred: limitsOf(tree.nice_to_have_criteria),
  };
}

export function evaKnownInfo(record: EvaRecord): Record<string, string> {
  const out: Record<string, string> = { name: record.user_config.name };
  for (const [key, value] of Object.entries(record.user_goal.information_required)) {
    const label = _label(key);
    if (label in out) continue;
    const text = _valueText(value);
    if (text !== "") out[label] = text;
  }
  return out;
}

const IDENTITY_LABELS: Readonly<Record<string, string>> = {
  "confirmation number": "confirmation number",
  "confirmation code": "confirmation number",
  "last name": "last name",
  "first name": "first name",
  "phone number": "phone number",
  "phone": "phone number",
  "email": "email",
  "email address": "email",
  "date of birth": "date of birth",
};

function _label(key: string): string {
  const plain = key.replaceAll("_", " ").replace(/\s+/g, " ").trim().toLowerCase();
  const core = plain
    .replace(/\s*\(if [^)]*\)$/, "")
    .replace(/ if (asked|requested|eventually provided)$/, "")
    .replace(/^(passenger|your|booking|contact) /, "");
  return IDENTITY_LABELS[core] ?? plain;
}

function _valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(_valueText).filter((t) => t !== "").join("; ");
  const o = value as Record<string, unknown>;
  if ("first_choice" in o) {
    return ["first_choice", "second_choice", "third_choice"]
      .map((k) => o[k]).filter((v) => typeof v === "string").join(", then ");
  }
  if ("origin" in o && "destination" in o) {
    let t = `${_valueText(o.origin)} to ${_valueText(o.destination)}`;
    if (o.flight_date) t += ` on ${_valueText(o.flight_date)}`;
    if (o.departure_time) t += ` at ${_valueText(o.departure_time)}`;
    if (o.flight_number) t += ` (flight ${_valueText(o.flight_number)})`;
    if (o.status) t += `, ${_valueText(o.status)}`;
    return t;
  }
  return Object.entries(o).map(([k, v]) => `${k.replaceAll("_", " ")}: ${_valueText(v)}`)
    .join(", ");
}

/** The simulated caller's system prompt. */
export function evaUserPrompt(record: EvaRecord, knownInfo: Record<string, string>): string {
  const goal = record.user_goal;
  const tree = goal.decision_tree;
  const persona = [
    `You are an airline passenger calling SkyWay Airlines. Your name is ${record.user_config.name}.`,
    record.user_config.user_persona,
    "Stay in this role for the whole call. You are speaking on the phone: keep each turn short and natural, with no Markdown, lists or emoji, say numbers and symbols the way a person would, and never make up facts you were not given.",
  ].filter((l) => l.trim() !== "").join("\n");

  const task = `# Task\n\nYour goal is to: ${goal.high_level_user_goal}`;

  const steps = [
    `Open the call by saying: "${goal.starting_utterance}"`,
    "When the agent asks who you are, give your confirmation number and last name.",
    "Explain your situation and your trip when asked, using only the facts below.",
    "Weigh each option the agent offers against your must-haves; accept one that meets them all, otherwise follow your failure path.",
    "Once your request is settled, or your failure path says to stop, thank the agent and say goodbye.",
  ];
  const guidelines: string[] = [];
  const confirmation = knownInfo["confirmation number"];
  guidelines.push(
    "Spell codes such as confirmation and flight numbers one character at a time, saying digits as words, and do not also say the code as a single word.",
  );
  if (confirmation) {
    guidelines.push(
      `Your confirmation number is ${confirmation}; say it as: ${spellOut(confirmation)}.`,
    );
  }
  for (const c of tree.must_have_criteria) guidelines.push(`Must-have: ${c}`);
  for (const c of tree.nice_to_have_criteria) guidelines.push(`Nice-to-have: ${c}`);
  for (const c of tree.negotiation_behavior) guidelines.push(`When negotiating: ${c}`);
  if (tree.resolution_condition) guidelines.push(`Resolved when: ${tree.resolution_condition}`);
  if (tree.failure_condition) guidelines.push(`Failure path: ${tree.failure_condition}`);
  if (tree.escalation_behavior) guidelines.push(`Escalation: ${tree.escalation_behavior}`);
  for (const c of tree.edge_cases) guidelines.push(`Edge case: ${c}`);

  const actions = [
    "# Actions",
    "",
    "## Instructions",
    "",
    "Follow these steps in order, one step per turn:",
    ...steps.map((s, i) => `Step ${i + 1}: ${s}`),
    "",
    "## Guidelines",
    "",
    "Keep to these throughout the call:",
    ...guidelines.map((g) => `- ${g}`),
  ].join("\n");

  const resources = [
    "# Resources",
    "",
    "## Additional Information",
    "",
    "### Things you know",
    "",
    ...Object.entries(knownInfo).map(([k, v]) => `- ${k}: ${v}`),
  ].join("\n");

  return [persona, task, actions, resources].join("\n\n");
}

/** A one-line summary: the first sentence of the caller's goal. */
export function evaDescription(record: EvaRecord): string {
  const goal = record.user_goal.high_level_user_goal.trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(goal);
  return m ? m[1]! : goal;
}
