import { deepEqual as assertEquals } from "node:assert/strict";
import { composeSuccess } from "./success.ts";
import type { Signals } from "./verdict.ts";

const none: Signals = {
  is_action_match: null,
  db_state_match: null,
  db_state_assertion: null,
  nl_assertion: null,
  judge_passed: null,
  clean_exit: null,
  flow_expectation: null,
  voice_readability: null,
  agent_voiced: null,
};

Deno.test("composeSuccess() passes when every applicable whitelisted signal passes", () => {
  const s = composeSuccess(
    { ...none, db_state_match: true, clean_exit: true },
    ["db_state_match", "clean_exit"],
  );
  assertEquals(s, {
    is_successful: true,
    is_task_successful: true,
    success_breakdown: {
      passed: ["db_state_match", "clean_exit"],
      failed: [],
      not_applicable: [],
      excluded: [],
    },
  });
});

Deno.test("composeSuccess() fails on any failed whitelisted signal (strict AND)", () => {
  const s = composeSuccess(
    { ...none, db_state_match: false, clean_exit: true },
    ["db_state_match", "clean_exit"],
  );
  assertEquals(s.is_successful, false);
  assertEquals(s.is_task_successful, false);
  assertEquals(s.success_breakdown.failed, ["db_state_match"]);
});

Deno.test("composeSuccess() keeps the task successful when only clean_exit failed", () => {
  const s = composeSuccess(
    { ...none, db_state_match: true, clean_exit: false },
    ["db_state_match", "clean_exit"],
  );
  assertEquals(s.is_successful, false);
  assertEquals(s.is_task_successful, true);
});

Deno.test("composeSuccess() is N/A when no whitelisted signal applies", () => {
  const s = composeSuccess({ ...none, clean_exit: true }, ["is_action_match", "judge_passed"]);
  assertEquals(s.is_successful, "N/A");
  assertEquals("is_task_successful" in s, false);
  assertEquals(s.success_breakdown, {
    passed: [],
    failed: [],
    not_applicable: ["is_action_match", "judge_passed"],
    excluded: ["clean_exit"],
  });
});

Deno.test("composeSuccess() ignores a signal that does not apply, even if whitelisted", () => {
  // Telecom: predicates gate; NL assertions whitelisted but not judged; the hash and
  // action match are computed but informational.
  const s = composeSuccess(
    {
      ...none,
      is_action_match: false,
      db_state_match: false,
      db_state_assertion: true,
      clean_exit: true,
      voice_readability: false,
    },
    ["db_state_assertion", "nl_assertion", "clean_exit"],
  );
  assertEquals(s.is_successful, true);
  assertEquals(s.success_breakdown, {
    passed: ["db_state_assertion", "clean_exit"],
    failed: [],
    not_applicable: ["nl_assertion"],
    excluded: ["is_action_match", "db_state_match", "voice_readability"],
  });
});

Deno.test("composeSuccess() lists signals in enum order whatever the whitelist order", () => {
  const s = composeSuccess(
    { ...none, clean_exit: false, is_action_match: true, flow_expectation: false },
    ["flow_expectation", "clean_exit", "is_action_match"],
  );
  assertEquals(s.success_breakdown.passed, ["is_action_match"]);
  assertEquals(s.success_breakdown.failed, ["clean_exit", "flow_expectation"]);
  assertEquals(s.is_task_successful, false);
});
