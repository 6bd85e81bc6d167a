import { deepEqual as assertEquals, equal, ok, rejects } from "node:assert/strict";
import { memoryIo } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { trialRecord } from "../score/_trial_fixture.ts";
import { VerdictSchema } from "../score/verdict.ts";
import { startFakeOpenAI } from "../../tests/fake_openai.ts";
import { command } from "./score.ts";

const lines = (...records: unknown[]) => records.map((r) => JSON.stringify(r)).join("\n") + "\n";
const HASH = "e".repeat(64);

const records = [
  trialRecord({ key: { trial: 0 }, final: { db_sha256: HASH }, expect: { db_sha256: HASH } }),
  trialRecord({ key: { trial: 1 }, clean_exit: false, stop_reason: "max_duration" }),
];

Deno.test("score prints one valid verdict per record, in order", async () => {
  const io = memoryIo(lines(...records));
  equal(await command.main([], io), 0);
  equal(io.stdout.length, 2);
  const verdicts = io.stdout.map((l) => VerdictSchema.parse(JSON.parse(l)));
  assertEquals(verdicts.map((v) => [v.trial, v.is_successful]), [[0, true], [1, false]]);
  assertEquals(verdicts[0]!.signals.db_state_match, true);
  assertEquals(io.stderr, []);
});

Deno.test("score is deterministic: the same records give byte-identical output", async () => {
  const input = lines(...records);
  const a = memoryIo(input);
  const b = memoryIo(input);
  await command.main([], a);
  await command.main([], b);
  equal(a.stdout.join("\n"), b.stdout.join("\n"));
});

Deno.test("score names the file, line and field of an invalid record", async () => {
  const bad = { ...trialRecord(), expect: { success_signals: ["clean_exitt"] } };
  const io = memoryIo(lines(records[0], bad));
  await rejects(command.main([], io), (e: unknown) => {
    ok(e instanceof InputError);
    assertEquals(e.problems[0]!.file, "<stdin>");
    assertEquals(e.problems[0]!.line, 2);
    assertEquals(e.problems[0]!.field, "expect.success_signals[0]");
    return true;
  });
  equal(io.stdout.length, 1, "the good record before it was scored");
});

Deno.test("score names the line of a record that is not JSON, or not a trial record", async () => {
  await rejects(command.main([], memoryIo("{nope\n")), (e: unknown) => {
    ok(e instanceof InputError);
    assertEquals([e.problems[0]!.line, e.problems[0]!.field], [1, undefined]);
    ok(e.message.includes("invalid JSON"));
    return true;
  });
  await rejects(
    command.main([], memoryIo(lines({ schema: "callbench.verdict/1" }))),
    (e: unknown) => {
      ok(e instanceof InputError);
      assertEquals(e.problems[0]!.field, "schema");
      ok(e.message.includes("is this a trial record?"), e.message);
      return true;
    },
  );
});

Deno.test("score --min-agent-turns fails calls where the agent spoke too little", async () => {
  const io = memoryIo(lines(records[0]));
  await command.main(["--min-agent-turns", "3"], io);
  const v = JSON.parse(io.stdout[0]!);
  assertEquals([v.is_successful, v.insufficient_agent_turns], [false, true]);
});

Deno.test("score warns when NL assertions go unjudged and calls no model", async () => {
  const io = memoryIo(lines(trialRecord({ expect: { nl_assertions: ["Says goodbye."] } })));
  equal(await command.main([], io), 0);
  equal(JSON.parse(io.stdout[0]!).signals.nl_assertion, null);
  ok(io.stderr[0]!.includes("no judge is configured"));
});

Deno.test("score refuses half a judge configuration", async () => {
  await rejects(command.main(["--judge-model", "m"], memoryIo("")), InputError);
  await rejects(command.main(["--judge-threshold", "0.5"], memoryIo("")), InputError);
  await rejects(
    command.main(
      ["--judge-model", "m", "--judge-base-url", "http://x", "--judge-threshold", "2"],
      memoryIo(""),
    ),
    InputError,
  );
});

Deno.test("score --judge-model asks the judge, with the key from the named variable", async () => {
  await using fake = startFakeOpenAI({
    fallback: () => ({
      content: JSON.stringify({
        score: 0.9,
        nl_assertion_verdicts: [{ index: 1, passed: true, reason: "said it" }],
      }),
    }),
  });
  const judged = trialRecord({
    key: { trial: 0 },
    expect: { nl_assertions: ["Says goodbye."], success_signals: ["nl_assertion", "clean_exit"] },
  });
  const plain = trialRecord({ key: { trial: 1 } });
  const io = memoryIo(lines(judged, plain, judged), { MY_KEY: "sk-test" });
  const code = await command.main([
    "--judge-model",
    "judge-m",
    "--judge-base-url",
    fake.baseUrl,
    "--judge-api-key-env",
    "MY_KEY",
    "--judge-concurrency",
    "2",
  ], io);
  equal(code, 0);
  const verdicts = io.stdout.map((l) => JSON.parse(l));
  assertEquals(verdicts.map((v) => [v.trial, v.signals.nl_assertion]), [[0, true], [1, null], [
    0,
    true,
  ]]);
  equal(fake.requests.length, 2, "only trials with assertions are judged");
  equal(fake.requests[0]!.headers.authorization, "Bearer sk-test");
  equal(verdicts[0].details.judge.score, 0.9);
});
