/**
 * The `flow_expectation` check (flows.md "Scoring a flow"): every field given in a
 * scenario's `expect` must hold of the call's flow trace.
 *
 * @module
 */
import type { FlowExpect } from "./schema.ts";
import type { FlowTrace } from "./trace.ts";

export interface FlowExpectResult {
  passed: boolean;
  /** One line per field that does not hold, saying what was expected and what happened. */
  failures: string[];
}

/**
 * Checks `expect` against a trace: `path` is the whole list of nodes entered, in
 * order; `keys` all the agent's keys as one string; `end` the node or built-in where
 * the call ended; `message` whether the voicemail box kept a message (`left`: sent
 * or kept) or not (`none`, also when the call never reached the box).
 */
export function checkFlowExpect(trace: FlowTrace, expect: FlowExpect): FlowExpectResult {
  const failures: string[] = [];
  if (expect.path !== undefined) {
    const path = trace.nodes.map((n) => n.name);
    const same = path.length === expect.path.length && path.every((n, i) => n === expect.path![i]);
    if (!same) {
      failures.push(
        `path: ${_divergence(expect.path, path)}; expected ${_list(expect.path)}, got ${
          _list(path)
        }`,
      );
    }
  }
  if (expect.keys !== undefined) {
    const keys = trace.keys.map((k) => k.keys).join("");
    if (keys !== expect.keys) {
      failures.push(`keys: expected ${JSON.stringify(expect.keys)}, got ${JSON.stringify(keys)}`);
    }
  }
  if (expect.end !== undefined && trace.end.node !== expect.end) {
    failures.push(
      `end: expected "${expect.end}", got "${trace.end.node}" (${trace.end.reason})`,
    );
  }
  if (expect.message !== undefined) {
    const outcome = trace.voicemail?.outcome;
    const message = outcome === "sent" || outcome === "kept" ? "left" : "none";
    if (message !== expect.message) {
      const what = outcome ? `voicemail outcome ${outcome}` : "the box was never reached";
      failures.push(`message: expected ${expect.message}, got ${message} (${what})`);
    }
  }
  return { passed: failures.length === 0, failures };
}

/** Where a path left the expected one: the first step at which they differ. */
function _divergence(expected: readonly string[], got: readonly string[]): string {
  let i = 0;
  while (i < expected.length && i < got.length && expected[i] === got[i]) i++;
  const after = i > 0 ? ` after "${expected[i - 1]}"` : "";
  if (i >= got.length) return `the call stopped at step ${i + 1}${after}, before "${expected[i]}"`;
  if (i >= expected.length) return `the call went on${after} to "${got[i]}"`;
  return `left the expected path at step ${i + 1}${after}: entered "${got[i]}", expected "${
    expected[i]
  }"`;
}

function _list(names: readonly string[]): string {
  return `[${names.join(", ")}]`;
}
