/**
 * A hostile or broken agent on the real socket cannot crash, freeze or bloat eval:
 * each flood of `./_flood_agents.ts` ends its trial as `protocol_error` within
 * seconds, naming what was exceeded, and a peer never chooses its own error kind.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { VoicedTts } from "../src/transport/_standin_agent.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { runTrial } from "../src/runner/run_trial.ts";
import { trialKey } from "../src/runner/trial_key.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import {
  type FloodAgent,
  measureEval,
  rawBadUtf8Agent,
  type RtviFlood,
  rtviFloodAgent,
  type TwilioFlood,
  twilioFloodAgent,
} from "./_flood_agents.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const scenario = (await selectScenarios(root, { domains: ["eva_airline"] })).scenarios[0]!;

/** One trial against `agent`; the figures of how it ended. */
async function trialAgainst(agent: FloodAgent): Promise<{ record: TrialRecord; ms: number }> {
  const t0 = performance.now();
  try {
    const record = await runTrial({
      scenario,
      key: trialKey(scenario.name, 0, "flood"),
      root,
      limits: { silenceMs: 30_000, maxTurns: 50 },
      participants: participantFactory({
        agent: agent.url,
        user: "auto",
        agentModel: {},
        userModel: {},
      }),
    });
    return { record, ms: performance.now() - t0 };
  } finally {
    await agent.close();
  }
}

const TURN_FLOODS: [RtviFlood, string, object][] = [
  ["segments", "32768 characters", {}],
  ["segments", "32768 fragments", { text: "" }],
  ["llm_text", "32768 characters", {}],
  ["tts_text", "32768 characters", {}],
  ["tts_text", "32768 fragments", { text: "" }],
];

for (const [flood, what, options] of TURN_FLOODS) {
  Deno.test(`flood: an agent turn that never ends (${flood}, ${what}) is protocol_error within seconds`, async () => {
    const agent = rtviFloodAgent(flood, options);
    const { record, ms } = await trialAgainst(agent);
    assert.equal(record.status, "error");
    assert.equal(record.error?.kind, "protocol_error", record.error?.message);
    assert.match(record.error!.message, new RegExp(`agent turn exceeded ${what}`));
    assert.ok(ms < 10_000, `ended after ${Math.round(ms)} ms`);
    assert.ok(agent.closedAt !== undefined, "eval closed the flooding socket");
  });
}

Deno.test("flood: trace entries without end are protocol_error within seconds", async () => {
  const agent = rtviFloodAgent("traces");
  const { record, ms } = await trialAgainst(agent);
  assert.equal(record.error?.kind, "protocol_error", record.error?.message);
  assert.match(
    record.error!.message,
    /agent sent more than 8388608 characters of traces and notes/,
  );
  assert.ok(ms < 10_000, `ended after ${Math.round(ms)} ms`);
});

Deno.test("flood: a fatal error cannot choose its kind: agent_unauthorized from a connected bot is protocol_error", async () => {
  for (const kind of ["agent_unauthorized", "agent_unreachable", "harness_error", "model_error"]) {
    const { record } = await trialAgainst(rtviFloodAgent("fatal_kind", { kind }));
    assert.equal(record.error?.kind, "protocol_error", `${kind}: ${record.error?.message}`);
    assert.match(record.error!.message, /the caller is not allowed here/);
    assert.match(record.error!.message, new RegExp(`claimed "${kind}"`));
  }
});

Deno.test("flood: a text frame that is not UTF-8 is protocol_error, not agent_disconnected", async () => {
  const agent = rawBadUtf8Agent();
  const { record } = await trialAgainst(agent);
  assert.equal(agent.sent, 1, "the bad frame was sent");
  assert.equal(record.error?.kind, "protocol_error", record.error?.message);
  assert.match(record.error!.message, /UTF-8/);
});

const TOOL_FLOODS: [string, object, RegExp][] = [
  [
    "900 KB arguments",
    {},
    /agent sent more than 8388608 characters of tool-call arguments/,
  ],
  [
    "small arguments",
    { argChars: 10 },
    /agent made tool calls faster than 10 a second \(beyond 100 at once\)/,
  ],
];

for (const [what, options, message] of TOOL_FLOODS) {
  Deno.test(`flood: a tool-call flood (${what}) is protocol_error within seconds`, async () => {
    const agent = rtviFloodAgent("tool_calls", { tool: "get_user_details", ...options });
    const { record, ms } = await trialAgainst(agent);
    assert.equal(record.error?.kind, "protocol_error", record.error?.message);
    assert.match(record.error!.message, message);
    assert.ok(ms < 10_000, `ended after ${Math.round(ms)} ms`);
    assert.ok(record.tool_calls.length <= 101, `${record.tool_calls.length} tool calls recorded`);
  });
}

/** An audio call (`eval --audio`) against `agent`, on the real clock, up to `maxMs`. */
async function audioCallAgainst(
  agent: FloodAgent,
  maxMs: number,
  framing: "json" | "twilio" = "json",
) {
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  const setup = (side: "agent" | "user"): CallSetup => ({
    side,
    scenario: "t",
    domain: "test_counter",
    prompt: "",
    tools: [],
    seed: "00000001",
  });
  const t0 = performance.now();
  try {
    const out = await runCall({
      env,
      agent: new RemoteParticipant({ url: agent.url, framing }),
      user: new ScriptedUser({}),
      agentSetup: setup("agent"),
      userSetup: setup("user"),
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: maxMs },
      firstSpeaker: "agent",
      timedSpeech: true,
      speech: { tts: new VoicedTts() },
    });
    return { out, ms: performance.now() - t0 };
  } finally {
    await agent.close();
  }
}

Deno.test("flood: audio far faster than real time is protocol_error at once, not minutes of nothing", async () => {
  const agent = rtviFloodAgent("audio", { frameMs: 100 });
  const { out, ms } = await audioCallAgainst(agent, 900_000);
  assert.equal(out.error?.kind, "protocol_error", out.error?.message);
  assert.match(
    out.error!.message,
    /agent sent audio faster than real time \(more than 60000 ms ahead\)/,
  );
  assert.ok(ms < 10_000, `ended after ${Math.round(ms)} ms`);
  // 60 s of audio is 600 frames of 100 ms: the flood was refused soon after.
  assert.ok(agent.sent < 20_000, `${agent.sent} frames sent`);
});

const TWILIO_FLOODS: [TwilioFlood, RegExp][] = [
  ["media", /agent sent audio faster than real time \(more than 60000 ms ahead\)/],
  ["marks", /agent sent marks and clears faster than 100 a second \(beyond 4096 at once\)/],
];

for (const [flood, message] of TWILIO_FLOODS) {
  Deno.test(`flood: a Twilio agent's ${flood} flood is protocol_error within seconds, not agent_silent`, async () => {
    const agent = twilioFloodAgent(flood);
    const { out, ms } = await audioCallAgainst(agent, 900_000, "twilio");
    assert.equal(out.error?.kind, "protocol_error", out.error?.message);
    assert.match(out.error!.message, message);
    assert.ok(ms < 10_000, `ended after ${Math.round(ms)} ms`);
  });
}

Deno.test("flood: eval --trials 3 --workers 2 against a turn that never ends: three protocol_error records, RSS bounded", async () => {
  const agent = rtviFloodAgent("segments");
  const dir = await Deno.makeTempDir();
  try {
    const m = await measureEval(agent, [
      "--scenarios",
      scenario.name,
      "--trials",
      "3",
      "--workers",
      "2",
      "--out",
      dir,
    ]);
    const records = (await Deno.readTextFile(`${dir}/trials.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l) as TrialRecord);
    assert.equal(records.length, 3, m.stderr);
    for (const r of records) {
      assert.equal(r.error?.kind, "protocol_error", r.error?.message);
      assert.match(r.error!.message, /agent turn exceeded 32768 characters/);
    }
    assert.ok(m.peakRssMb - m.rssAtFloodMb < 300, `RSS ${m.rssAtFloodMb} → ${m.peakRssMb} MB`);
    assert.ok(m.floodToExitMs < 10_000, `${m.floodToExitMs} ms from the flood to the exit`);
    // --resume with a fourth trial runs only that one, and the run is whole.
    const again = await measureEval(agent, [
      "--scenarios",
      scenario.name,
      "--trials",
      "4",
      "--workers",
      "2",
      "--out",
      dir,
      "--resume",
    ]);
    const lines = (await Deno.readTextFile(`${dir}/trials.jsonl`)).trim().split("\n");
    assert.equal(lines.length, 4, again.stderr);
  } finally {
    await agent.close();
    await Deno.remove(dir, { recursive: true });
  }
});
