import assert from "node:assert/strict";
import { formatProblem, InputError } from "../cli/problem.ts";
import { findKind, PARTICIPANT_KINDS } from "./kinds.ts";
import { checkParticipantSpecs, participantFactory } from "./registry.ts";

const noModel = { agentModel: {}, userModel: {} };

Deno.test("an unknown agent is a usage error naming the closest kind, never an LLM", () => {
  assert.throws(
    () => participantFactory({ agent: "oracel", user: "auto", ...noModel }),
    (e: unknown) =>
      e instanceof InputError && e.problems[0]!.option === "agent" &&
      e.problems[0]!.field === undefined && !/--/.test(e.message) &&
      /did you mean "oracle"/.test(e.problems[0]!.hint ?? "") &&
      // The CLI names the flag.
      /^field "--agent": unknown agent "oracel"/.test(formatProblem(e.problems[0]!)),
  );
  // Before: anything unmatched became an LlmAgent (and failed only at call time).
  const withModel = { agentModel: { model: "m", baseUrl: "http://127.0.0.1:1/v1" }, userModel: {} };
  assert.throws(
    () => checkParticipantSpecs({ agent: "gpt", user: "auto", ...withModel }),
    InputError,
  );
  assert.throws(
    () => checkParticipantSpecs({ agent: "oracle", user: "scriptd", ...noModel }),
    (e: unknown) => e instanceof InputError && /did you mean "scripted"/.test(e.problems[0]!.hint!),
  );
});

Deno.test("each kind is one entry: sides, needs, prefixes and what serve can host", () => {
  assert.equal(findKind("script:a.yaml", "agent").name, "script:");
  assert.equal(findKind("ws://127.0.0.1:1/ws", "user").side, "user");
  assert.throws(() => findKind("script:", "agent"), InputError);
  assert.throws(() => findKind("oracle", "user"), InputError);
  assert.throws(() => findKind("script:x", "agent", { hosted: true }), InputError);
  const hosted = PARTICIPANT_KINDS.filter((k) => k.hostable).map((k) => `${k.side}:${k.name}`);
  assert.deepEqual(hosted, [
    "agent:oracle",
    "agent:noop",
    "agent:llm",
    "agent:navigator",
    "user:scripted",
    "user:llm",
    "user:flow",
  ]);
  assert.deepEqual(findKind("llm", "user").needs, ["model"]);
  assert.deepEqual(findKind("oracle", "agent").needs, ["scenario"]);
});

Deno.test("llm participants need a model and a base URL", () => {
  assert.throws(
    () => checkParticipantSpecs({ agent: "llm", user: "auto", ...noModel }),
    (e: unknown) => e instanceof InputError && /needs a model/.test(e.message),
  );
});
