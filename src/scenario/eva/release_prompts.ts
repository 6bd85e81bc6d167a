/**
 * The prompts of an EVA-Bench release scenario (IT service desk, medical HR) in one
 * language: the agent gets the domain's own role and instructions, our voice notes,
 * and, outside English, the language to answer in; the caller's prompt is rendered
 * from the record's goal, decision tree and facts, and tells them which language
 * to speak.
 *
 * @module
 */
import { LANGUAGE_NAMES } from "./culture.ts";

/** The agent's system prompt. */
export function releaseAgentPrompt(
  role: string,
  instructions: string,
  today: string,
  language: string,
): string {
  const notes = [
    "## Additional Notes to Follow",
    "",
    `- Today is ${today}.`,
    "- This is a phone call and everything you write is spoken aloud. Keep turns short, use plain sentences with no Markdown, lists, headings or emoji, say numbers, times and symbols the way a person would say them, and never invent facts that no tool gave you.",
    "- Spell codes and identifiers one character at a time, and tell the caller something is done only when a tool call has actually done it.",
    "- Call end_conversation only when the caller has said they need nothing else and you have both said goodbye, or right after a transfer to a live agent has gone through.",
  ];
  if (language !== "en") {
    const name = LANGUAGE_NAMES[language] ?? language;
    notes.push(
      `- Speak ${name} with the caller whatever language the instructions or tool results use. Tool names and arguments stay as the tools define them (a person's name may be in its own script). Translate what can be translated, such as a place described as Downtown; keep product names as they are.`,
    );
  }
  return `${role.trim()}\n\n${instructions.trimEnd()}\n\n${notes.join("\n")}`;
}

/** The simulated caller's system prompt. */
export function releaseUserPrompt(input: {
  name: string;
  persona: string;
  goal: string;
  opening: string;
  tree: {
    must_have_criteria: string[];
    nice_to_have_criteria: string[];
    negotiation_behavior: string[];
    resolution_condition: string;
    failure_condition: string;
    escalation_behavior: string;
    edge_cases: string[];
  };
  knownInfo: Record<string, string>;
  language: string;
}): string {
  const { tree } = input;
  const persona = [
    `You are calling a service desk. Your name is ${input.name}.`,
    input.persona,
    "Stay in this role for the whole call. You are speaking on the phone: keep each turn short and natural, with no Markdown, lists or emoji, say numbers and codes the way a person would, and never make up facts you were not given.",
  ];
  if (input.language !== "en") {
    const name = LANGUAGE_NAMES[input.language] ?? input.language;
    persona.push(
      `Speak only ${name}, even if the agent speaks another language. Translate what can be translated (a place, a date in the way ${name} speakers say it); keep proper names such as products as they are.`,
    );
  }
  const guidelines: string[] = [];
  for (const c of tree.must_have_criteria) guidelines.push(`Must-have: ${c}`);
  for (const c of tree.nice_to_have_criteria) guidelines.push(`Nice-to-have: ${c}`);
  for (const c of tree.negotiation_behavior) guidelines.push(`When negotiating: ${c}`);
  if (tree.resolution_condition) guidelines.push(`Resolved when: ${tree.resolution_condition}`);
  if (tree.failure_condition) guidelines.push(`Failure path: ${tree.failure_condition}`);
  if (tree.escalation_behavior) guidelines.push(`Escalation: ${tree.escalation_behavior}`);
  for (const c of tree.edge_cases) guidelines.push(`Edge case: ${c}`);
  return [
    persona.filter((l) => l.trim() !== "").join("\n"),
    `# Task\n\nYour goal is to: ${input.goal}`,
    [
      "# Actions",
      "",
      `Open the call by saying: "${input.opening}"`,
      "Answer the agent's questions with the facts below, one step per turn; once your request is settled, or your failure path says to stop, thank the agent and say goodbye.",
      "",
      ...guidelines.map((g) => `- ${g}`),
    ].join("\n"),
    [
      "# Things you know",
      "",
      ...Object.entries(input.knownInfo).map(([k, v]) => `- ${k}: ${v}`),
    ].join("\n"),
  ].join("\n\n");
}
