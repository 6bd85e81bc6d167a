/**
 * What an external agent receives over the wire is what a real callee would get:
 * its prompt, tools, userdata and the caller's side of the call. Every frame sent to
 * a bare RTVI bot is recorded and searched for the scenario's expectations.
 */
import assert from "node:assert/strict";
import { DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { runTrial } from "../src/runner/run_trial.ts";
import { trialKey } from "../src/runner/trial_key.ts";
import { BUNDLED_DATA_ROOT } from "../src/scenario/data_root.ts";

/** A minimal RTVI bot: greets, says goodbye after the caller's first words, ends. */
function recordingBot() {
  const frames: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    const send = (type: string, data: unknown, id?: string) =>
      socket.send(JSON.stringify({ label: "rtvi-ai", type, ...(id ? { id } : {}), data }));
    const speak = (text: string) => {
      send("bot-started-speaking", {});
      send("bot-output", { text, aggregated_by: "sentence", spoken_status: "completed" });
      send("bot-stopped-speaking", {});
    };
    socket.onmessage = (e) => {
      const text = String(e.data);
      frames.push(text);
      const msg = JSON.parse(text);
      if (msg.type === "client-ready") send("bot-ready", { version: "2.1.0" }, msg.id);
      if (msg.type === "client-message") {
        send("server-response", { t: msg.data.t, d: true }, msg.id);
        if (msg.data.t === "call_event" && msg.data.d?.type === "call_start") {
          if (msg.data.d.you_speak_first) speak("Hello, how can I help?");
        }
      }
      if (msg.type === "send-text") {
        speak("Thank you, goodbye.");
        send("server-message", { type: "end", reason: "done" });
      }
    };
    return response;
  });
  return {
    frames,
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    close: () => server.shutdown(),
  };
}

Deno.test("an external agent's frames carry no expectations (eva world, flow)", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const worlds = await selectScenarios(root, { domains: ["eva_airline"] });
  const flows = await selectScenarios(root, { files: ["scenarios/flows"] });
  const bot = recordingBot();
  // Flows run on the wall clock with a remote agent: pick the ones that open briefly.
  const quick = flows.scenarios.filter((s) =>
    s.user.start === "livekit/voicemail" || !s.user.start
  );
  assert.ok(quick.length >= 2);
  try {
    for (const scenario of [worlds.scenarios[0]!, ...quick]) {
      bot.frames.length = 0;
      const record = await runTrial({
        scenario,
        key: trialKey(scenario.name, 0, "frames"),
        root,
        limits: { silenceMs: 30_000, maxTurns: 50 },
        participants: participantFactory({
          agent: bot.url,
          user: "auto",
          agentModel: {},
          userModel: {},
        }),
      });
      assert.equal(record.status, "completed", `${scenario.name}: ${record.error?.message}`);
      const wire = bot.frames.join("\n");
      assert.ok(wire.includes("update_system_prompt"), "the agent was set up over the wire");
      assert.ok(bot.frames.some((f) => f.includes('"send-text"')), "and heard the caller");
      const secrets = [
        scenario.expect.db_sha256,
        scenario.expect.user_db_sha256,
        scenario.expect.agent_expectations,
        "reference_actions",
        "success_signals",
        "db_state_assertions",
        "expected_db",
        ...Object.keys(scenario.flow ?? {}).map((node) => `"${node}"`),
        ...(scenario.user.start ? [`"start"`] : []),
        ...(scenario.expect.reference_actions ?? []).map((a) => JSON.stringify(a.arguments))
          .filter((a) => a !== "{}"),
      ].filter((s): s is string => !!s);
      for (const secret of secrets) {
        assert.ok(!wire.includes(secret), `${scenario.name}: the agent must not see ${secret}`);
      }
    }
  } finally {
    await bot.close();
  }
});
