/**
 * Generated trial records for benchmarks: `count` realistic calls (eight turns, four
 * tool calls, reference actions, a DB hash, latency samples) spread over scenarios of
 * three suites, with a deterministic mix of outcomes and a few infrastructure errors.
 *
 * @module
 */
import type { TrialRecord } from "../runner/trial_record.ts";
import { trialRecord } from "./_trial_fixture.ts";

const SUITES = ["tau2_airline", "tau2_retail", "eva_airline"] as const;
const HASH_OK = "1".repeat(64);
const HASH_BAD = "2".repeat(64);

/** `count` records over `scenarios` scenarios (trials numbered per scenario). */
export function generatedTrials(count: number, scenarios = 1000): TrialRecord[] {
  const out: TrialRecord[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % scenarios;
    const trial = Math.floor(i / scenarios);
    const suite = SUITES[s % SUITES.length]!;
    const roll = (s * 7919 + trial * 104729) % 100;
    const success = roll < 70 - (s % 5) * 10;
    const error = roll === 99;
    const reservation = `R${(100000 + s).toString(36).toUpperCase()}`;
    out.push(trialRecord({
      key: {
        scenario: `${suite}__${s}`,
        trial,
        seed: (s * 31 + trial).toString(16),
        config_hash: "bench",
      },
      domain: suite,
      suite,
      clean_exit: success || roll % 3 === 0,
      stop_reason: success ? "agent_end" : "max_duration",
      duration_ms: 40_000 + roll * 300,
      turns: Array.from({ length: 8 }, (_, t) => ({
        speaker: t % 2 === 0 ? "agent" as const : "user" as const,
        text: t % 2 === 0
          ? `Thanks. I have found reservation ${
            t === 4 && roll % 4 === 0 ? reservation : "R, X, one, two"
          } for you.`
          : "Yes, please go ahead and change it to the later flight on Friday.",
        start_ms: t * 5000,
        end_ms: t * 5000 + 3500,
      })),
      tool_calls: [
        {
          side: "agent",
          name: "get_user_details",
          arguments: { user_id: `user_${s}` },
          result: { user_id: `user_${s}`, reservations: [reservation] },
          ok: true,
          at_ms: 9000,
        },
        {
          side: "agent",
          name: "get_reservation_details",
          arguments: { reservation_id: reservation },
          result: {
            reservation_id: reservation,
            flights: [{ flight_number: "HAT001", date: "2024-05-17" }],
          },
          ok: true,
          at_ms: 14000,
        },
        {
          side: "agent",
          name: "update_reservation_flights",
          arguments: {
            reservation_id: reservation,
            cabin: "economy",
            flights: [{ flight_number: success ? "HAT002" : "HAT003", date: "2024-05-17" }],
            payment_id: "credit_card_1",
          },
          result: { status: "ok" },
          ok: true,
          at_ms: 24000,
        },
        {
          side: "agent",
          name: "end_conversation",
          arguments: {},
          result: "bye",
          ok: true,
          at_ms: 39000,
        },
      ],
      actions: [{
        action_type: "update_reservation_flights",
        name: "update_reservation_flights",
        side: "agent",
      }],
      final: { db_sha256: success ? HASH_OK : HASH_BAD },
      latency: [1, 3, 5, 7].map((t) => ({
        turn: t,
        response_ms: 400 + ((roll * t * 37) % 900),
        ttft_ms: 150 + ((roll * t) % 200),
      })),
      expect: {
        success_signals: ["db_state_match", "clean_exit"],
        db_sha256: HASH_OK,
        reference_actions: [
          {
            side: "agent",
            name: "get_reservation_details",
            arguments: { reservation_id: reservation },
          },
          {
            side: "agent",
            name: "update_reservation_flights",
            arguments: {
              reservation_id: reservation,
              cabin: "economy",
              flights: [{ flight_number: "HAT002", date: "2024-05-17" }],
              payment_id: "credit_card_1",
            },
            compare_args: ["reservation_id", "flights"],
          },
        ],
      },
      ...(error
        ? {
          status: "error" as const,
          error: { kind: "agent_timeout" as const, message: "no reply in 30 s" },
        }
        : {}),
    }));
  }
  return out;
}
