import { deepEqual, equal } from "node:assert/strict";
import { trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { summarize } from "./summary.ts";
import { renderMarkdown } from "./markdown.ts";

function verdict(scenario: string, language: string | undefined, success: boolean) {
  return scoreTrial(trialRecord({
    key: { scenario },
    suite: "eva_itsm",
    ...(language !== undefined ? { language } : {}),
    clean_exit: success,
    stop_reason: success ? "agent_end" : "max_duration",
  }));
}

Deno.test("the report gives success by call language, only when trials name one", () => {
  const r = summarize([
    verdict("eva_itsm__1", "fr", true),
    verdict("eva_itsm__2", "fr", false),
    verdict("eva_itsm__3", "ko", true),
  ]);
  const c = r.configurations[0]!;
  deepEqual(Object.keys(c.by_language!), ["fr", "ko"]);
  deepEqual(c.by_language!.fr!.success, { passed: 1, total: 2, rate: 0.5 });
  equal(c.by_language!.ko!.success.rate, 1);
  const md = renderMarkdown(r);
  equal(md.includes("### Per language"), true);
  equal(md.includes("| fr | 2 | 2 | 50.0% (1/2) |"), true, md);
  // No language named: no by_language, no section.
  const plain = summarize([verdict("demo__one", undefined, true)]);
  equal(plain.configurations[0]!.by_language, undefined);
  equal(renderMarkdown(plain).includes("Per language"), false);
});
