import assert from "node:assert/strict";
import { ParticipantError, type Usage } from "../bridge/call.ts";
import { OpenAiClient } from "../llm/openai.ts";
import { startFakeOpenAI } from "../../tests/fake_openai.ts";
import { OPENING_NOTE } from "./_llm_conversation.ts";
import { llmPersonaSpeaker } from "./llm_persona.ts";

function clientFor(baseUrl: string) {
  return new OpenAiClient({ baseUrl, model: "persona-model", sleep: () => Promise.resolve() });
}

Deno.test("llmPersonaSpeaker() casts the agent as the user and the persona as the assistant", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "  Yes, this is Kim.  " }] });
  const usage: Usage[] = [];
  const speaker = llmPersonaSpeaker(clientFor(fake.baseUrl), {
    temperature: 0.3,
    onUsage: (u) => usage.push(u),
  });
  const text = await speaker.reply({
    instructions: "You are the receptionist.",
    userdata: { patient: "Kim Lee" },
    history: [
      { speaker: "far_end", text: "Front desk." },
      { speaker: "agent", text: "Hi, calling about an appointment." },
      { speaker: "agent", text: "For Kim Lee." },
    ],
  });
  assert.equal(text, "Yes, this is Kim.");
  assert.deepEqual(usage, [{ prompt_tokens: 10, completion_tokens: 5 }]);
  const body = fake.requests[0]!.body;
  assert.equal(body.temperature, 0.3);
  const [system, ...turns] = body.messages;
  assert.ok(
    String(system!.content).startsWith(
      'You are the receptionist.\n\n# What you know\n{\n  "patient": "Kim Lee"\n}\n\n' +
        "You are on a phone call",
    ),
    String(system!.content),
  );
  assert.deepEqual(turns, [
    { role: "assistant", content: "Front desk." },
    { role: "user", content: "Hi, calling about an appointment.\nFor Kim Lee." },
  ]);
});

Deno.test("llmPersonaSpeaker() asks the persona to open when nothing has been said", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hello?" }] });
  const speaker = llmPersonaSpeaker(clientFor(fake.baseUrl), { model: "other-model" });
  assert.equal(await speaker.reply({ instructions: "Answer the phone.", history: [] }), "Hello?");
  assert.deepEqual(fake.requests[0]!.body.messages.at(-1), { role: "user", content: OPENING_NOTE });
  assert.equal(fake.requests[0]!.body.model, "other-model");
});

Deno.test("llmPersonaSpeaker() rejects with user_error when the model fails", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ status: 401, error: "bad key" }) });
  const speaker = llmPersonaSpeaker(clientFor(fake.baseUrl));
  await assert.rejects(
    () => speaker.reply({ instructions: "x", history: [{ speaker: "agent", text: "Hi" }] }),
    (e: unknown) =>
      e instanceof ParticipantError && e.kind === "user_error" &&
      /HTTP 401.*bad key/.test(e.message),
  );
});

Deno.test("llmPersonaSpeaker() tells the persona the call's language", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "Sí, soy Kim." }, { content: "Yes." }],
  });
  const speaker = llmPersonaSpeaker(clientFor(fake.baseUrl));
  await speaker.reply({
    instructions: "You are the receptionist.",
    language: "es-MX",
    history: [],
  });
  await speaker.reply({ instructions: "You are the receptionist.", history: [] });
  const system = (i: number) => String(fake.requests[i]!.body.messages[0]!.content);
  assert.ok(system(0).endsWith("Speak only the language es-MX (BCP 47)."), system(0));
  assert.ok(!system(1).includes("Speak only the language"), system(1));
});
