/**
 * Trial records for tests and benchmarks: a valid, completed, clean-exit call that a
 * test changes only where it matters.
 *
 * @module
 */
import { TRIAL_RECORD_SCHEMA, type TrialRecord } from "../runner/trial_record.ts";
import type { AudioBlock } from "../runner/audio_block.ts";

/** Fields a test may override; `expect` and `key` are merged, not replaced. */
export type TrialOverrides =
  & Partial<Omit<TrialRecord, "expect" | "key">>
  & {
    key?: Partial<TrialRecord["key"]>;
    expect?: Partial<TrialRecord["expect"]>;
  };

/** A completed three-turn call gated on `clean_exit`, with the given changes. */
export function trialRecord(overrides: TrialOverrides = {}): TrialRecord {
  const { key, expect, ...rest } = overrides;
  return {
    schema: TRIAL_RECORD_SCHEMA,
    key: { scenario: "demo__one", trial: 0, seed: "00ff", config_hash: "cfg1", ...key },
    domain: "demo",
    suite: "demo",
    status: "completed",
    world_owner: "harness",
    stop_reason: "agent_end",
    clean_exit: true,
    started_at: "2024-05-15T15:00:00.000Z",
    duration_ms: 12_000,
    turns: [
      { speaker: "agent", text: "Hello, how can I help?", start_ms: 0, end_ms: 1_500 },
      { speaker: "user", text: "I want to cancel my booking.", start_ms: 2_000, end_ms: 4_000 },
      { speaker: "agent", text: "Done. Goodbye.", start_ms: 4_600, end_ms: 6_000 },
    ],
    dtmf: [],
    tool_calls: [],
    actions: [],
    final: { db_sha256: null },
    assertions: [],
    latency: [{ turn: 2, response_ms: 600, ttft_ms: 250 }],
    usage: {
      agent: { calls: 2, prompt_tokens: 1_000, completion_tokens: 50 },
      user: { calls: 1, prompt_tokens: 400, completion_tokens: 20 },
    },
    participants: { agent: { kind: "oracle" }, user: { kind: "scripted" } },
    expect: {
      success_signals: ["clean_exit"],
      db_state_assertions: [],
      nl_assertions: [],
      ...expect,
    },
    timings: { setup_ms: 1, call_ms: 12_000, wall_ms: 5 },
    ...rest,
  };
}

/** An audio block for `trialRecord({ audio })`: two measured agent turns and one barge-in. */
export function audioBlock(overrides: Partial<AudioBlock> = {}): AudioBlock {
  return {
    tts: { provider: "flite", voices: { agent: "rms", user: "slt" } },
    stt: "transcript",
    dtmf: "event",
    sample_rate: 16_000,
    sides: { agent: { sent_s: 3, received_s: 2 }, user: { sent_s: 2, received_s: 3 } },
    ttfa_ms: 180,
    turns: [
      { turn: 2, v2v_ms: 640, ref_frame_ms: 600, ref_segment_ms: 900 },
    ],
    barge_ins: [{ at_ms: 5_000, agent_turn: 2, yielded: true, yield_ms: 40 }],
    silence: { count: 0, total_ms: 0, max_ms: 500 },
    talk_over_ms: 40,
    tones: [],
    wav: "audio/demo__one__t0__0123456789ab.wav",
    ...overrides,
  };
}
