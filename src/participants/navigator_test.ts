import assert from "node:assert/strict";
import { join } from "node:path";
import { flowScenario, simulateFlowCall } from "../flow/_sim_call.ts";
import { checkFlowExpect } from "../flow/expect.ts";
import { loadFlowFile } from "../scenario/flow_file.ts";
import type { VoicemailBox } from "../flow/trace.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { menuOptions, NavigatorAgent, pickOption } from "./navigator.ts";

const FLOWS = new URL("../../scenarios/flows/", import.meta.url).pathname;

async function bundled(): Promise<Scenario[]> {
  const out: Scenario[] = [];
  for await (const e of Deno.readDir(FLOWS)) {
    if (!e.name.endsWith(".yaml")) continue;
    const file = join(FLOWS, e.name);
    const r = loadFlowFile(file, await Deno.readTextFile(file));
    assert.deepEqual([r.problems, r.warnings], [[], []], file);
    out.push(...r.scenarios);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const BOXES: VoicemailBox[] = [];
for (const beep of [true, false]) {
  for (const menu of [true, false]) {
    for (const silence_wait_s of [2, 3, 4, 5]) BOXES.push({ beep, menu, silence_wait_s });
  }
}

Deno.test("menuOptions reads both ways of offering a key", () => {
  assert.deepEqual(
    menuOptions(
      "For appointments, press 1. To pay a bill, press two. Press star for the operator.",
    ),
    [
      { label: "appointments", key: "1" },
      { label: "pay a bill", key: "2" },
      { label: "the operator", key: "*" },
    ],
  );
  assert.deepEqual(menuOptions("Enter your card number, then press pound."), []);
});

Deno.test("pickOption matches the goal's words, ignoring plurals and filler", () => {
  const options = menuOptions(
    "For appointments, press 1. For prescription refills, press 2. For billing questions, press 3.",
  );
  assert.equal(pickOption(options, "appointment")?.key, "1");
  assert.equal(pickOption(options, "a prescription refill")?.key, "2");
  assert.equal(pickOption(options, "pay my bill")?.key, "3");
  assert.equal(pickOption(options, "grooming"), undefined);
});

Deno.test("the navigator passes every bundled flow scenario, for every voicemail box", async () => {
  const scenarios = await bundled();
  assert.ok(scenarios.length >= 7, `${scenarios.length} bundled scenarios`);
  let calls = 0;
  for (const s of scenarios) {
    const voicemail = s.user.start === "livekit/voicemail" ||
      Object.values(s.flow ?? {}).some((n) =>
        (n as { then?: string }).then === "livekit/voicemail"
      );
    const runs = voicemail
      ? BOXES.map((voicemailBox) => ({ voicemailBox }))
      : [{ seed: "a1" }, { seed: "b2" }];
    for (const options of runs) {
      const { trace, outcome } = await simulateFlowCall(s, new NavigatorAgent(), options);
      calls++;
      const r = checkFlowExpect(trace, s.expect.flow ?? {});
      assert.ok(r.passed, `${s.name} ${JSON.stringify(options)}: ${r.failures.join("; ")}`);
      assert.equal(outcome.error, undefined, s.name);
    }
  }
  assert.ok(calls > 40);
});

Deno.test("the navigator tells the screener who is calling and why, and the person its business", async () => {
  const [s] = (await bundled()).filter((x) => x.name.endsWith("__book-checkup"));
  const { agentSaw, outcome } = await simulateFlowCall(s!, new NavigatorAgent());
  const said = outcome.turns.filter((t) => t.speaker === "agent").map((t) => t.text);
  assert.deepEqual(said, [
    "This is Jordan, Priya Nair's assistant, calling to book a checkup for her dog Pepper next week.",
    "Hello, this is Jordan, Priya Nair's assistant. I'm calling to book a checkup for her dog Pepper next week.",
    "Thank you, goodbye.",
  ]);
  assert.deepEqual(outcome.dtmf.map((k) => k.keys), ["1"]);
  assert.equal(outcome.stopReason, "agent_hangup");
  // Nothing was said during the hold: the first thing said answers the screener.
  const holdEnd = agentSaw.find((e) => e.type === "speech" && /hold/.test(e.text))!.at;
  assert.ok(outcome.turns.find((t) => t.speaker === "agent")!.start_ms > holdEnd + 4000);
});

Deno.test("the navigator waits for the beep, or for the greeting's end when no beep comes", async () => {
  const [s] = (await bundled()).filter((x) => x.name.endsWith("__personal-voicemail"));
  for (const beep of [true, false]) {
    const box = { beep, menu: false, silence_wait_s: 2 };
    const { trace, outcome } = await simulateFlowCall(s!, new NavigatorAgent(), {
      voicemailBox: box,
    });
    const greetingEnd = trace.voicemail!.takes[0]!.start_ms;
    const message = outcome.turns.find((t) => t.speaker === "agent")!;
    assert.equal(message.start_ms, greetingEnd + (beep ? 400 : 1500), `beep ${beep}`);
    assert.match(trace.voicemail!.takes[0]!.transcript, /^Hi Dana, this is Jordan/);
    assert.equal(trace.voicemail!.takes.length, 1);
  }
});

Deno.test("the navigator hangs up on a number that is not in service without saying a word", async () => {
  const s = flowScenario({}, "livekit/unavailable");
  const { outcome, trace } = await simulateFlowCall(s, new NavigatorAgent());
  assert.deepEqual(outcome.turns.filter((t) => t.speaker === "agent"), []);
  assert.equal(trace.end.node, "livekit/unavailable");
});

Deno.test("the navigator enters the digits whose field name fits the prompt", async () => {
  const s = flowScenario(
    {
      ask: {
        say: "Please enter your account number, then press pound.",
        speaker: "MACHINE",
        routes: [{ match: "\\d+", to: "livekit/hangup" }],
      },
    },
    "ask",
    {
      agent: { prompt: "", tools: [], userdata: { zip_code: "90210", account_number: "0077123" } },
    },
  );
  const { trace } = await simulateFlowCall(s, new NavigatorAgent());
  assert.equal(trace.keys.map((k) => k.keys).join(""), "0077123#");
});
