/**
 * The prompts of a tau2 scenario (reference-harness §2.2). The agent gets the
 * benchmark's policy verbatim, then an `## Additional Notes to Follow` block of
 * voice-call notes (ours); telecom adds three notes on which tools are whose, staying
 * on the caller's problem, and asking where the caller is. The caller's prompt is
 * rendered from the task's `user_scenario` in four sections: persona, task, actions,
 * resources.
 *
 * @module
 */
import type { Tau2Instructions } from "./task.ts";

/** How to talk on a call where every word is spoken by a voice. */
export const VOICE_STYLE =
  "This is a phone call: everything you write is read aloud by a speech synthesiser. " +
  "Keep each turn short and conversational. Write plain sentences with no Markdown, " +
  "headings, bullet or numbered lists, tables or emoji, since symbols would be read out " +
  "literally. When there are several options, say them in a sentence. Say numbers, " +
  "prices, dates and times the way a person would, and name symbols in words (say " +
  "'at' for @ and 'dash' for -). Never make up a fact you were not given.";

/** How to say identifiers so speech recognition on the other end gets them right. */
export const SPELL_IDENTIFIERS =
  "When you say an identifier such as a reservation, order, user or item id, an email " +
  "address or a phone number, spell it one character at a time: digits as words, " +
  "letters one by one, punctuation by name (for example 'W, two, three, seven, eight'). " +
  "Do not also say it as a single word. A person's name may be said normally and then " +
  "spelled if needed.";

const END_OF_CALL =
  "Use end_conversation only after the caller has confirmed they need nothing else and " +
  "you have both said goodbye, or right after a transfer to a human agent has gone through.";

const HONESTY =
  "Say that something is done only when a tool call actually did it. If a call failed " +
  "or you did not make it, say so plainly.";

/** The notes every tau2 agent prompt ends with. */
export function agentNotes(): string {
  return ["## Additional Notes to Follow", VOICE_STYLE, SPELL_IDENTIFIERS, END_OF_CALL, HONESTY]
    .join("\n\n");
}

/** An airline or retail agent prompt: the policy verbatim, then the notes. */
export function agentPrompt(policy: string): string {
  return `${policy}\n\n${agentNotes()}`;
}

/** The telecom policy: the main policy, a rule, then the tech-support manual or workflow. */
export function telecomPolicy(mainPolicy: string, techSupport: string): string {
  return `${mainPolicy.trim()}\n\n---\n\n${techSupport.trim()}`;
}

/**
 * A telecom agent prompt: the joined policy, the notes, and three telecom notes.
 * `agentTools` and `userTools` are the exact names each side can call.
 */
export function telecomAgentPrompt(
  policy: string,
  agentTools: readonly string[],
  userTools: readonly string[],
): string {
  const toolsNote = [
    "Which tools are yours. The policy above mentions many tools, but on this call you " +
    "can call only these, by exactly these names:",
    agentTools.join(", "),
    "",
    "Every other tool the policy mentions runs on the caller's phone, and only the caller " +
    "can use it. Those are:",
    userTools.join(", "),
    "",
    "When the policy tells you to check or change something on the phone, ask the caller " +
    "to do it and to tell you what they see; do not call a phone tool yourself, it will " +
    "fail as an unknown tool.",
  ].join("\n");
  const focusNote =
    "Stay on the problem the caller called about. Do not switch to something unrelated " +
    "that you notice on the account, such as an overdue bill, another line's contract or " +
    "a suspended second line, unless it is what causes the caller's problem or the caller " +
    "asks about it. You may mention it briefly once the main problem is solved.";
  const abroadNote =
    "The carrier is based in the United States: phone numbers are ten-digit US numbers, " +
    "addresses are in US states and bills are in dollars. For any connectivity problem " +
    "(no data, slow data, MMS that will not send, no service, weak signal), ask the caller " +
    "where they are right now, at home in the US or travelling abroad, before you go " +
    "through other settings; they may not say it unprompted. If they are abroad and " +
    "mobile data does not work, look up their line with get_details_by_id and check " +
    "roaming_enabled. If roaming is off, explain that and offer to turn it on; if they " +
    "agree, call enable_roaming.";
  return `${policy}\n\n${agentNotes()}\n\n${toolsNote}\n\n${focusNote}\n\n${abroadNote}`;
}

/** The four steps a telecom caller follows (in our words). */
const TELECOM_CALLER_STEPS = [
  "Greet the agent and describe what is wrong with your phone, as a symptom. Do not " +
  "suggest fixes.",
  "Do what the agent asks, one step at a time: when asked to do something on your phone, " +
  "use the matching tool, one tool call per request.",
  "On your next turn, tell the agent what the tool showed, then let the agent decide " +
  "what to try next.",
  "When the problem is gone, confirm it to the agent, and say goodbye once the agent has " +
  "finished.",
];

const PASSIVE_TOOL_USE =
  "Use your phone's tools only when the agent has just asked you to do that specific " +
  "thing. You are the customer: the agent diagnoses, you describe and follow. Base " +
  "everything you say about your phone on what the last tool call returned, and never " +
  "speak as if you were the agent (for example, do not ask whether there is anything " +
  "else you can help with).";

const STAY_IN_ROLE = "Stay in this role for the whole call and never say you are an AI.";

/** The simulated caller's system prompt, from a task's `user_scenario.instructions`. */
export function userPrompt(instructions: Tau2Instructions, telecom: boolean): string {
  const persona = [
    "You are a human user calling customer support.",
    instructions.task_instructions?.trim() ?? "",
    `${STAY_IN_ROLE} ${VOICE_STYLE}`,
  ].filter((line) => line !== "").join("\n");

  const task = `# Task\n\nYour goal is to: ${instructions.reason_for_call?.trim() ?? ""}`;

  const actions = ["# Actions"];
  if (telecom) {
    actions.push(
      "## Instructions\n\nFollow these steps in order, one step per turn:\n" +
        TELECOM_CALLER_STEPS.map((s, i) => `Step ${i + 1}: ${s}`).join("\n"),
    );
  }
  const guidelines = telecom ? [SPELL_IDENTIFIERS, PASSIVE_TOOL_USE] : [SPELL_IDENTIFIERS];
  actions.push(
    "## Guidelines\n\nKeep to these throughout the call:\n" +
      guidelines.map((g) => `- ${g}`).join("\n"),
  );

  const resources = ["# Resources"];
  const known = instructions.known_info?.trim();
  const unknown = instructions.unknown_info?.trim();
  if (known || unknown) {
    const info = ["## Additional Information"];
    if (known) info.push(`### Things you know\n\n${known}`);
    if (unknown) info.push(`### Things you don't know\n\n${unknown}`);
    resources.push(info.join("\n\n"));
  }

  return [persona, task, actions.join("\n\n"), resources.join("\n\n")].join("\n\n");
}
