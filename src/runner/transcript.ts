/**
 * A trial's call as a person reads it.
 *
 * @module
 */
import type { TrialRecord } from "./trial_record.ts";

function seconds(ms: number): string {
  return (ms / 1000).toFixed(2).padStart(7);
}

/** `[  1.20 -   3.40] AGENT: ...` lines, keys and tool calls interleaved by time. */
export function formatTranscript(r: TrialRecord): string {
  const events: { at: number; text: string }[] = [];
  for (const t of r.turns) {
    const who = t.speaker === "agent"
      ? "AGENT"
      : t.voice === "MACHINE"
      ? "CALLEE (machine)"
      : "USER";
    events.push({
      at: t.start_ms,
      text: `[${seconds(t.start_ms)} - ${seconds(t.end_ms)}] ${who}: ${t.text}${
        t.interrupted ? " [cut off]" : ""
      }`,
    });
  }
  for (const d of r.dtmf) {
    events.push({
      at: d.at_ms,
      text: `[${seconds(d.at_ms)}] ${d.side.toUpperCase()} pressed ${d.keys}`,
    });
  }
  for (const c of r.tool_calls) {
    events.push({
      at: c.at_ms,
      text: `[${seconds(c.at_ms)}] ${c.side} tool ${c.name}(${JSON.stringify(c.arguments)}) -> ${
        c.ok ? "ok" : "error"
      }`,
    });
  }
  events.sort((a, b) => a.at - b.at);
  const head = [
    `scenario: ${r.key.scenario}  trial: ${r.key.trial}  seed: ${r.key.seed}`,
    `agent: ${r.participants.agent.kind}  user: ${r.participants.user.kind}`,
    "",
  ];
  const foot = [
    "",
    `stop reason: ${r.stop_reason}${r.error ? ` (${r.error.kind}: ${r.error.message})` : ""}`,
    `final db: ${r.final.db_sha256 ?? "-"}  expected: ${r.expect.db_sha256 ?? "-"}`,
  ];
  return [...head, ...events.map((e) => e.text), ...foot].join("\n") + "\n";
}
