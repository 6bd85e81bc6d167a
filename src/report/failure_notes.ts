/**
 * Why a trial failed, in words: for each failed gating signal, the evidence that
 * matters (the paths where the world differs, the first unmet assertion, the missing
 * or extra reference action, where a flow's path left the expected one), so a reader
 * sees the cause without reading the verdict's JSON. `compare`'s flips, the reports
 * and `explain` all say it with these.
 *
 * @module
 */
import { stateDiffLine } from "../env/state_diff.ts";
import type { Signal } from "../scenario/scenario.ts";
import type { ReportedVerdict } from "./reported_verdict.ts";

/** One failed signal (or the trial's error) and what shows it. */
export interface FailureNote {
  /** The failed signal, or `error` for an infrastructure error. */
  signal: Signal | "error";
  /** One line: the first piece of evidence. */
  summary: string;
  /** Further lines of evidence (e.g. every path of a state diff), possibly empty. */
  details: string[];
}

/** Each failed gating signal of a verdict, in its order; the error first, if any. */
export function failureNotes(v: ReportedVerdict): FailureNote[] {
  const notes: FailureNote[] = [];
  if (v.status === "error") {
    notes.push({
      signal: "error",
      summary: `${v.error?.kind ?? "harness_error"}: ${v.error?.message ?? "no message"}`,
      details: [],
    });
  }
  for (const s of v.success_breakdown.failed) notes.push(signalNote(v, s));
  return notes;
}

/** The first failed signal of a verdict with its first piece of evidence, if it failed. */
export function firstFailure(v: ReportedVerdict): FailureNote | undefined {
  return failureNotes(v)[0];
}

/** One signal's evidence (gating or not), as `failureNotes` words it. */
export function signalNote(v: ReportedVerdict, signal: Signal): FailureNote {
  const d = v.details;
  switch (signal) {
    case "db_state_match": {
      const db = d.db_state;
      if (db?.diff && db.diff.entries.length > 0) {
        const lines = db.diff.entries.map(stateDiffLine);
        const more = db.diff.total - db.diff.entries.length;
        if (more > 0) lines.push(`… and ${more} more path(s)`);
        return {
          signal,
          summary: `final world differs at ${db.diff.total} path(s): ${lines[0]}`,
          details: lines,
        };
      }
      return {
        signal,
        summary: db?.actual_sha256 === null
          ? "the trial left no world to hash"
          : `final hash ${_short(db?.actual_sha256)}, expected ${_short(db?.expected_sha256)}`,
        details: [],
      };
    }
    case "db_state_assertion": {
      const all = d.db_state_assertion?.verdicts ?? [];
      const failed = all.filter((a) => !a.passed);
      const lines = failed.map((a) =>
        `${a.func_name} (${a.side}): ` +
        (a.error
          ? `could not be evaluated: ${a.error}`
          : `expected ${_json(a.expected)}, got ${_json(a.actual)}`) +
        (a.message ? ` (${a.message})` : "")
      );
      return {
        signal,
        summary: lines[0] ?? "a state assertion has no verdict",
        details: lines,
      };
    }
    case "is_action_match": {
      const m = d.action_match;
      const lines = (m?.unmatched ?? []).map((u) =>
        !u.made_as
          ? `reference action #${u.index} ${u.name} was not made`
          : u.made_as.differing.length === 0
          ? `reference action #${u.index} ${u.name} was made fewer times than the reference has it`
          : `reference action #${u.index} ${u.name} was made with other arguments: ${
            u.made_as.differing.map((d) => `${d.argument} ${d.got} (expected ${d.expected})`)
              .join(", ")
          }`
      );
      if (m?.length_mismatch) {
        lines.push(
          `${m.prediction_count} action(s) made, the reference has ${m.reference_count}` +
            (m.prediction_count > m.reference_count ? " (extra actions)" : ""),
        );
      }
      return { signal, summary: lines[0] ?? "the actions do not match", details: lines };
    }
    case "clean_exit":
      return {
        signal,
        summary: `the agent did not end the call cleanly (it stopped by ${v.stop_reason})`,
        details: [],
      };
    case "flow_expectation": {
      const lines = d.flow?.failures ?? [];
      return { signal, summary: lines[0] ?? "the flow expectation failed", details: lines };
    }
    case "nl_assertion":
    case "judge_passed": {
      const j = d.judge;
      const lines = (j?.nl_assertion_verdicts ?? []).filter((n) => !n.passed).map((n) =>
        `#${n.index} ${n.assertion}: ${n.reason}`
      );
      if (signal === "judge_passed" && j?.score !== null && j?.score !== undefined) {
        lines.unshift(
          `judge score ${j.score}${j.threshold !== undefined ? ` < ${j.threshold}` : ""}`,
        );
      }
      return { signal, summary: lines[0] ?? (j?.reason || "the judge failed it"), details: lines };
    }
    case "voice_readability": {
      const lines = d.voice.flags.map((f) =>
        `turn ${f.turn}: ${f.kind} "${f.identifier}" in "${f.text}"`
      );
      return { signal, summary: lines[0] ?? "a turn reads an identifier badly", details: lines };
    }
  }
  return { signal, summary: "failed", details: [] };
}

function _short(hash: string | null | undefined): string {
  return hash ? hash.slice(0, 12) : "none";
}

function _json(x: unknown): string {
  const text = JSON.stringify(x) ?? "undefined";
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
