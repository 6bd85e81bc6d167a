import { equal, ok } from "node:assert/strict";
import { agentPrompt, telecomAgentPrompt, telecomPolicy, userPrompt } from "./prompts.ts";

Deno.test("agentPrompt() keeps the policy verbatim and adds the notes block after it", () => {
  const policy = "# Shop policy\n\nBe kind.\n";
  const prompt = agentPrompt(policy);
  ok(prompt.startsWith(policy));
  ok(prompt.slice(policy.length).startsWith("\n\n## Additional Notes to Follow\n\n"));
  ok(prompt.includes("end_conversation"));
});

Deno.test("telecomPolicy() joins the two policies with a horizontal rule", () => {
  equal(telecomPolicy("# Main\n\n", "\n# Manual\n"), "# Main\n\n---\n\n# Manual");
});

Deno.test("telecomAgentPrompt() lists whose tools are whose and adds the location rule", () => {
  const prompt = telecomAgentPrompt("POLICY", ["get_details_by_id", "enable_roaming"], [
    "toggle_data",
    "check_status_bar",
  ]);
  ok(prompt.startsWith("POLICY\n\n## Additional Notes to Follow"));
  ok(prompt.includes("get_details_by_id, enable_roaming"));
  ok(prompt.includes("toggle_data, check_status_bar"));
  ok(prompt.indexOf("toggle_data") > prompt.indexOf("get_details_by_id"));
  ok(/abroad/.test(prompt) && /roaming_enabled/.test(prompt));
});

Deno.test("userPrompt() renders persona, task, actions and resources in that order", () => {
  const prompt = userPrompt({
    task_instructions: "You are patient.",
    reason_for_call: "You want a refund.",
    known_info: "You are Ida Berg.",
    unknown_info: "You do not know your order id.",
  }, false);
  const sections = prompt.split("\n\n# ");
  equal(sections.length, 4);
  ok(sections[0]!.startsWith("You are a human user calling customer support.\nYou are patient.\n"));
  equal(sections[1], "Task\n\nYour goal is to: You want a refund.");
  ok(sections[2]!.startsWith("Actions\n\n## Guidelines"));
  ok(!sections[2]!.includes("## Instructions"));
  ok(sections[3]!.includes("### Things you know\n\nYou are Ida Berg."));
  ok(sections[3]!.includes("### Things you don't know\n\nYou do not know your order id."));
});

Deno.test("userPrompt() gives a telecom caller a four-step script and the passive-tool rule", () => {
  const prompt = userPrompt({ reason_for_call: "No signal.", known_info: "You are Al Roy." }, true);
  ok(prompt.includes("## Instructions"));
  ok(prompt.includes("Step 4: "));
  ok(!prompt.includes("Step 5: "));
  ok(prompt.includes("only when the agent has just asked you"));
  ok(!prompt.includes("Things you don't know"));
});
