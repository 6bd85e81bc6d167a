import { deepEqual as assertEquals, ok } from "node:assert/strict";
import { OpenAiClient } from "../llm/openai.ts";
import { startFakeOpenAI } from "../../tests/fake_openai.ts";
import { trialRecord } from "./_trial_fixture.ts";
import {
  judgedAssertions,
  judgeTrial,
  MISSING_VERDICT_REASON,
  normaliseVerdicts,
  parseJudgeReply,
} from "./judge.ts";

const ASSERTIONS = ["The agent confirms the refund amount.", "The agent offers no voucher."];
const record = trialRecord({ expect: { nl_assertions: ASSERTIONS } });

function client(baseUrl: string) {
  return new OpenAiClient({ baseUrl, model: "judge-m", maxRetries: 2, sleep: async () => {} });
}

const good = JSON.stringify({
  score: 0.8,
  reason: "Mostly right",
  nl_assertion_verdicts: [
    { index: 2, passed: false, reason: "Offered a voucher" },
    { index: 1, passed: true, reason: "Said $120" },
  ],
});

Deno.test("judgeTrial() sends the evidence and returns one verdict per assertion, in order", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: good }] });
  const result = await judgeTrial(record, { model: client(fake.baseUrl), threshold: 0.5 });
  assertEquals(result.status, "completed");
  assertEquals(result.score, 0.8);
  assertEquals(result.threshold, 0.5);
  assertEquals(result.attempts, 1);
  assertEquals(result.nl_assertion_verdicts.map((v) => [v.index, v.passed, v.assertion]), [
    [1, true, ASSERTIONS[0]],
    [2, false, ASSERTIONS[1]],
  ]);
  assertEquals(result.usage, { prompt_tokens: 10, completion_tokens: 5 });
  const sent = fake.requests[0]!.body;
  assertEquals(sent.model, "judge-m");
  assertEquals(sent.messages[0]!.role, "system");
  const evidence = sent.messages[1]!.content as string;
  ok(
    evidence.includes(
      `<nl_assertions>\n1. ${ASSERTIONS[0]}\n2. ${ASSERTIONS[1]}\n</nl_assertions>`,
    ),
  );
  ok(evidence.includes("[agent]: Hello, how can I help?"));
  ok(!evidence.includes("<reference>"), "no reference actions, no reference section");
});

Deno.test("judgeTrial() asks again after a reply it cannot parse", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "I think it went well." }, { content: good }],
  });
  const result = await judgeTrial(record, { model: client(fake.baseUrl) });
  assertEquals(result.status, "completed");
  assertEquals(result.attempts, 2);
  assertEquals(fake.requests.length, 2);
});

Deno.test("judgeTrial() records a judge error, not failed verdicts, when no reply parses", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ content: "{not json" }) });
  const result = await judgeTrial(record, { model: client(fake.baseUrl), maxAttempts: 3 });
  assertEquals(result.status, "error");
  assertEquals(result.attempts, 3);
  assertEquals(result.score, null);
  assertEquals(result.nl_assertion_verdicts, []);
  ok(result.error!.includes("not a JSON object"));
  assertEquals(fake.requests.length, 3);
});

Deno.test("judgeTrial() asks again when verdicts are missing, then counts them failed", async () => {
  const partial = JSON.stringify({
    score: 1,
    reason: "ok",
    nl_assertion_verdicts: [{ index: 1, passed: true, reason: "yes" }],
  });
  await using fake = startFakeOpenAI({ fallback: () => ({ content: partial }) });
  const result = await judgeTrial(record, { model: client(fake.baseUrl), maxAttempts: 2 });
  assertEquals(result.status, "completed");
  assertEquals(result.attempts, 2);
  assertEquals(result.incomplete, true);
  assertEquals(result.nl_assertion_verdicts[1], {
    index: 2,
    assertion: ASSERTIONS[1],
    passed: false,
    reason: MISSING_VERDICT_REASON,
  });
});

Deno.test("judgeTrial() retries HTTP 429 and 500 through the client", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ status: 429, headers: { "retry-after": "1" } }, { status: 500 }, { content: good }],
  });
  const result = await judgeTrial(record, { model: client(fake.baseUrl) });
  assertEquals(result.status, "completed");
  assertEquals(fake.requests.length, 3);
});

Deno.test("judgeTrial() turns a request that keeps failing into a judge error", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ status: 500, error: "overloaded" }) });
  const result = await judgeTrial(record, { model: client(fake.baseUrl) });
  assertEquals(result.status, "error");
  ok(result.error!.includes("HTTP 500"), result.error);
  assertEquals(fake.requests.length, 3); // one attempt and two retries
});

Deno.test("judgeTrial() does not call the model when the call left no evidence", async () => {
  await using fake = startFakeOpenAI();
  const empty = trialRecord({ turns: [], expect: { nl_assertions: ASSERTIONS } });
  const result = await judgeTrial(empty, { model: client(fake.baseUrl) });
  assertEquals(fake.requests.length, 0);
  assertEquals(result.score, 0);
  assertEquals(result.nl_assertion_verdicts.map((v) => v.passed), [false, false]);
});

Deno.test("judgeTrial() judges a flow's agent_expectations with the flow trace", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      content: "```json\n" +
        JSON.stringify({ score: 1, nl_assertion_verdicts: [{ index: 1, passed: true }] }) +
        "\n```",
    }],
  });
  const flowRecord = trialRecord({
    expect: { agent_expectations: "Presses 1 and confirms the appointment." },
    flow: { start: "front", nodes: [{ name: "front", at_ms: 0 }], keys: [] },
  });
  assertEquals(judgedAssertions(flowRecord), ["Presses 1 and confirms the appointment."]);
  const result = await judgeTrial(flowRecord, { model: client(fake.baseUrl) });
  assertEquals(result.nl_assertion_verdicts.map((v) => v.passed), [true]);
  const evidence = fake.requests[0]!.body.messages[1]!.content as string;
  ok(evidence.includes("<flow_trace>"));
  ok(evidence.includes("1. Presses 1 and confirms the appointment."));
});

Deno.test("normaliseVerdicts() drops out-of-range, non-integer and repeated indices", () => {
  const { verdicts, incomplete } = normaliseVerdicts([
    { index: 0, passed: true },
    { index: 3, passed: true },
    { index: 1.5, passed: true },
    { index: "2", passed: true },
    { index: 2, passed: "true" },
    { index: 2, passed: true },
    { index: 1, passed: true, reason: "fine" },
  ], ["a", "b"]);
  assertEquals(incomplete, false);
  assertEquals(verdicts, [
    { index: 1, assertion: "a", passed: true, reason: "fine" },
    // The first entry for index 2 wins, and "true" is not true.
    { index: 2, assertion: "b", passed: false, reason: "" },
  ]);
  assertEquals(normaliseVerdicts("nope", ["a"]).incomplete, true);
});

Deno.test("parseJudgeReply() finds the object in prose, a fence, or flat braces", () => {
  assertEquals(parseJudgeReply('{"score": 0.5}'), { score: 0.5, reason: "", verdicts: undefined });
  assertEquals(
    parseJudgeReply('Sure! {"score": "1", "reason": "r"} Thanks.'),
    { score: 1, reason: "r", verdicts: undefined },
  );
  assertEquals(
    parseJudgeReply('Notes {a} then {"score": 0.25, "reason": "x"}'),
    { score: 0.25, reason: "x", verdicts: undefined },
  );
  assertEquals(typeof parseJudgeReply('{"reason": "no score"}'), "string");
  assertEquals(typeof parseJudgeReply("nothing here"), "string");
});

Deno.test("parseJudgeReply() refuses a score outside 0 to 1", () => {
  const r = parseJudgeReply('{"score": 7, "reason": "great"}');
  assertEquals(typeof r, "string");
  assertEquals((r as string).startsWith('the reply\'s "score" 7 is outside 0 to 1'), true);
  assertEquals(parseJudgeReply('{"score": 1}'), { score: 1, reason: "", verdicts: undefined });
});
