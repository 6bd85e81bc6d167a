/**
 * The package's record types (`schemas/types.ts`, generated from the zod schemas) are the
 * zod schemas' own: each checked both ways at type-check time, so a schema that changes
 * without `deno task schema` fails the type check of this file (and of every module that
 * uses the type, since the library's own code uses the generated types too).
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import type * as Public from "../schemas/types.ts";
import type { ReferenceActionSchema, ScenarioSchema } from "../src/scenario/scenario.ts";
import type { SpeechOptionsSchema } from "../src/speech/speech_options.ts";
import type { speechErrorSchema } from "../src/speech/speech.ts";
import type {
  ErrorKind,
  RunConcurrencySchema,
  StopReason,
  TrialKeySchema,
  TrialRecordSchema,
  TurnSchema,
} from "../src/runner/trial_record.ts";
import type { JudgeResultSchema, VerdictSchema } from "../src/score/verdict.ts";
import type { ReportSchema } from "../src/report/summary.ts";

/** `true` when every value of A is a value of B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Same<A, B> = Fits<A, B> extends true ? Fits<B, A> : false;
type Parsed<S extends z.ZodType> = z.output<S>;

const same: {
  Scenario: Same<Parsed<typeof ScenarioSchema>, Public.Scenario>;
  ReferenceAction: Same<Parsed<typeof ReferenceActionSchema>, Public.ReferenceAction>;
  SpeechOptions: Same<Parsed<typeof SpeechOptionsSchema>, Public.SpeechOptions>;
  SpeechError: Same<Parsed<typeof speechErrorSchema>, Public.SpeechError>;
  ErrorKind: Same<Parsed<typeof ErrorKind>, Public.ErrorKind>;
  StopReason: Same<Parsed<typeof StopReason>, Public.StopReason>;
  Turn: Same<Parsed<typeof TurnSchema>, Public.Turn>;
  TrialKey: Same<Parsed<typeof TrialKeySchema>, Public.TrialKey>;
  RunConcurrency: Same<Parsed<typeof RunConcurrencySchema>, Public.RunConcurrency>;
  TrialRecord: Same<Parsed<typeof TrialRecordSchema>, Public.TrialRecord>;
  JudgeResult: Same<Parsed<typeof JudgeResultSchema>, Public.JudgeResult>;
  Verdict: Same<Parsed<typeof VerdictSchema>, Public.Verdict>;
  Report: Same<Parsed<typeof ReportSchema>, Public.Report>;
} = {
  Scenario: true,
  ReferenceAction: true,
  SpeechOptions: true,
  SpeechError: true,
  ErrorKind: true,
  StopReason: true,
  Turn: true,
  TrialKey: true,
  RunConcurrency: true,
  TrialRecord: true,
  JudgeResult: true,
  Verdict: true,
  Report: true,
};

Deno.test("the public record types are the zod schemas' types, both ways", () => {
  assert.ok(Object.values(same).every((v) => v === true));
  assert.equal(Object.keys(same).length, 13);
});
