import assert from "node:assert/strict";
import { textDurationMs } from "../speech/utterance.ts";
import { formatProblem } from "../problem/problem.ts";
import { flowScenario, simulateFlowCall } from "../flow/_sim_call.ts";
import { loadFlowFile } from "../scenario/flow_file.ts";
import { parseScript, ScriptAgent, ScriptSchema } from "./script.ts";

const d = textDurationMs;

Deno.test("parseScript reads a YAML list, keeping keys as text", () => {
  const r = parseScript(
    "s.yaml",
    "- after: speech\n  press: 0042\n- wait: 1.5\n- say: Hello\n- hangup: true\n",
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.actions, [
    { after: "speech", press: "0042" },
    { wait: 1.5 },
    { say: "Hello" },
    { hangup: true },
  ]);
  assert.deepEqual(parseScript("s.json", '{"actions": [{"after": "beep"}]}').actions, [{
    after: "beep",
  }]);
});

Deno.test("parseScript locates bad actions", () => {
  const r = parseScript("s.yaml", "- say: Hi\n- press: 12x\n- wait: 2\n  say: both\n- sya: typo\n");
  assert.deepEqual(r.actions, undefined);
  assert.deepEqual(r.problems.map(formatProblem), [
    's.yaml:2: field "[1].press": keys are 0-9, *, #, A-D',
    's.yaml:3: field "[2]": an action is one of "say", "press", "wait" or "hangup", with an optional "after"',
    's.yaml:5: field "[3]": unknown field "sya" (an action has say, press, wait, hangup, after)',
  ]);
  assert.match(
    formatProblem(parseScript("s.yaml", "say: hi\n").problems[0]!),
    /a script is a list/,
  );
});

Deno.test("ScriptAgent.fromFile reports an unreadable or bad file as an input error", async () => {
  await assert.rejects(ScriptAgent.fromFile("/nonexistent/script.yaml"), /cannot read/);
  const file = await Deno.makeTempFile({ suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, "- wait: -1\n");
    await assert.rejects(ScriptAgent.fromFile(file), (e: Error) => e.name === "InputError");
    await Deno.writeTextFile(file, "- press: '1'\n");
    assert.equal((await ScriptAgent.fromFile(file)).info.kind, "script");
  } finally {
    await Deno.remove(file);
  }
});

const MENU = "For sales press 1.";
const nodes = {
  menu: { say: MENU, speaker: "MACHINE" as const, routes: [{ match: "1", to: "hold" }] },
  hold: { say: "Hold please.", timeout: { after_ms: 3000, to: "person" } },
  person: { say: "Hi.", instructions: "Be brief." },
};

Deno.test("ScriptAgent plays its actions in order, waiting for speech when told", async () => {
  const agent = new ScriptAgent([
    { after: "speech", press: "1" },
    { after: "speech" }, // the hold message
    { after: "speech", say: "Hello, I have a question." },
    { wait: 2 },
    { hangup: true },
  ]);
  const { trace, outcome } = await simulateFlowCall(flowScenario(nodes, "menu"), agent);
  assert.deepEqual(trace.keys, [{ keys: "1", at_ms: d(MENU), node: "menu" }]);
  const personAt = d(MENU) + d("Hold please.") + 3000;
  assert.deepEqual(trace.nodes.map((n) => [n.name, n.at_ms]), [
    ["menu", 0],
    ["hold", d(MENU)],
    ["person", personAt],
  ]);
  const said = outcome.turns.find((t) => t.speaker === "agent")!;
  assert.equal(said.start_ms, personAt + d("Hi."));
  assert.deepEqual(trace.end, {
    node: "person",
    reason: "agent_hangup",
    at_ms: said.end_ms + 2000,
  });
});

Deno.test("ScriptAgent waits for a beep", async () => {
  const greeting = "Leave a message.";
  const agent = new ScriptAgent([{ after: "beep", say: "Call me back." }, { hangup: true }]);
  const { trace } = await simulateFlowCall(
    flowScenario({ g: { say: greeting, then: "livekit/voicemail" } }, "g"),
    agent,
    { voicemailBox: { beep: true, menu: true, silence_wait_s: 3 } },
  );
  assert.deepEqual(trace.voicemail?.takes, [
    {
      transcript: "Call me back.",
      start_ms: d(greeting),
      end_ms: d(greeting) + d("Call me back."),
    },
  ]);
  assert.equal(trace.voicemail?.outcome, "kept");
});

Deno.test("ScriptAgent drives the bundled clinic menu through its catch-all route", async () => {
  const file = new URL("../../scenarios/flows/animal_clinic.yaml", import.meta.url).pathname;
  const [s] = loadFlowFile(file, await Deno.readTextFile(file)).scenarios;
  const agent = new ScriptAgent([{ after: "speech", press: "9" }, { after: "speech" }, {
    after: "speech",
    press: "3",
  }]);
  const { trace } = await simulateFlowCall(s!, agent);
  assert.deepEqual(trace.nodes.map((n) => n.name), ["main", "not_an_option", "main", "billing"]);
  assert.equal(trace.end.node, "livekit/hangup");
});

Deno.test("a script's wait takes durations as flow files write them", () => {
  const r = parseScript("s.yaml", "- wait: 6s\n- wait: 1500ms\n- wait: 2\n- wait: .5s\n");
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.actions, [{ wait: 6 }, { wait: 1.5 }, { wait: 2 }, { wait: 0.5 }]);
  assert.deepEqual(parseScript("s.yaml", "- say: hi\n- wait: soon\n").problems.map(formatProblem), [
    's.yaml:2: field "[1].wait": "wait" is a positive duration: seconds (2.5), "6s" or "1500ms", got "soon"',
  ]);
  assert.equal(parseScript("s.yaml", "- wait: 0s\n").problems.length, 1);
});

Deno.test("a script file over the size limit is refused before parsing, naming the file", async () => {
  const file = await Deno.makeTempFile({ suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, "- say: hi\n" + "#".repeat(8 * 1024 * 1024));
    await assert.rejects(
      ScriptAgent.fromFile(file),
      (e: Error) =>
        e.name === "InputError" && e.message.includes(file) && /too large/.test(e.message),
    );
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("a script's keys may be written in lower case and are pressed in upper case", () => {
  const r = parseScript("s.yaml", "- press: 1a#d\n");
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.actions, [{ press: "1A#D" }]);
  assert.deepEqual(ScriptSchema.parse([{ press: "b" }]), [{ press: "B" }]);
});
