import assert from "node:assert/strict";
import {
  CallerTimingSyntaxError,
  DEFAULT_CALLER_TIMING,
  parseCallerTiming,
} from "./caller_timing.ts";

Deno.test("caller timing: gap=MEAN±SPREAD,eot=MS in ms or s, a term left out keeps its default", () => {
  assert.deepEqual(parseCallerTiming("gap=250ms±100,eot=600ms"), DEFAULT_CALLER_TIMING);
  assert.deepEqual(parseCallerTiming("gap=300+-50"), {
    gap_ms: 300,
    gap_spread_ms: 50,
    eot_ms: 600,
  });
  assert.deepEqual(parseCallerTiming("eot=1.2s"), { ...DEFAULT_CALLER_TIMING, eot_ms: 1200 });
  assert.deepEqual(parseCallerTiming("gap=0,eot=0"), { gap_ms: 0, gap_spread_ms: 0, eot_ms: 0 });
  assert.deepEqual(parseCallerTiming(""), DEFAULT_CALLER_TIMING);
});

Deno.test("caller timing: bad terms are errors that say what is wrong", () => {
  for (
    const [text, says] of [
      ["gap=50±100", "spread"],
      ["late=5", "unknown term"],
      ["gap=250ms,gap=300ms", "twice"],
      ["gap=fast", "duration"],
      ["eot", "eot=DURATION"],
      ["gap=1±2±3", "one ±"],
      ["eot=90s", "60 s"],
    ] as const
  ) {
    assert.throws(
      () => parseCallerTiming(text),
      (e: unknown) => e instanceof CallerTimingSyntaxError && e.message.includes(says),
      text,
    );
  }
});
