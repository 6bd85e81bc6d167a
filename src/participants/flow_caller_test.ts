import assert from "node:assert/strict";
import { type CallLine, ParticipantError } from "../bridge/call.ts";
import { textDurationMs } from "../speech/utterance.ts";
import { flowScenario, simulateFlowCall, TimedAgent } from "../flow/_sim_call.ts";
import {
  STAND_IN_OPENING,
  STAND_IN_PERSON_ACK,
  STAND_IN_SCREENER_ACK,
  UNAVAILABLE_PROMPT,
} from "./flow_caller.ts";
import type { PersonaSpeaker } from "../flow/persona.ts";

const d = textDurationMs;
const MENU = "For sales press 1. For anything else press another key.";

const menuNodes = {
  menu: {
    say: MENU,
    speaker: "MACHINE" as const,
    routes: [{ match: "1", to: "sales" }, { match: "[0-9*#]", to: "other" }],
    timeout: { after_ms: 8000, to: "menu" },
  },
  sales: { say: "Sales.", then: "livekit/hangup" },
  other: { say: "Other.", then: "livekit/hangup" },
};

Deno.test("FlowCaller tries routes in order: the first full match wins", async () => {
  for (const [key, to] of [["1", "sales"], ["2", "other"], ["#", "other"]]) {
    const agent = new TimedAgent([[d(MENU) + 100, (l) => l.press(key!)]]);
    const { trace } = await simulateFlowCall(flowScenario(menuNodes, "menu"), agent);
    assert.deepEqual(trace.nodes.map((n) => n.name), ["menu", to]);
    assert.deepEqual(trace.keys, [{ keys: key, at_ms: d(MENU) + 100, node: "menu" }]);
    assert.deepEqual(trace.end.node, "livekit/hangup");
    assert.equal(trace.end.reason, "hangup");
  }
});

Deno.test("FlowCaller ignores a single key that matches no route, and the timer goes on", async () => {
  const nodes = {
    menu: { ...menuNodes.menu, routes: [{ match: "1", to: "sales" }] },
    sales: menuNodes.sales,
  };
  const agent = new TimedAgent([[d(MENU) + 1000, (l) => l.press("7")]]);
  const { trace } = await simulateFlowCall(flowScenario(nodes, "menu"), agent);
  // The key restarts the timeout: the menu plays again 8 s after it.
  assert.deepEqual(trace.nodes.slice(0, 2), [
    { name: "menu", at_ms: 0 },
    { name: "menu", at_ms: d(MENU) + 1000 + 8000 },
  ]);
  assert.deepEqual(trace.keys, [{ keys: "7", at_ms: d(MENU) + 1000, node: "menu" }]);
});

const CARD = "Enter your account number, then press pound.";
const cardNodes = {
  card: {
    say: CARD,
    speaker: "MACHINE" as const,
    routes: [{ match: "\\d{4}", to: "ok" }, { match: "[0-9*]+", to: "card" }],
    timeout: { after_ms: 15000, to: "livekit/hangup" },
  },
  ok: { say: "Thank you.", then: "livekit/hangup" },
};

Deno.test("FlowCaller collects keys until # and then matches the entry", async () => {
  const at = d(CARD) + 500;
  const agent = new TimedAgent([
    [at, (l) => l.press("12")],
    [at + 2000, (l) => l.press("34#")],
  ]);
  const { trace } = await simulateFlowCall(flowScenario(cardNodes, "card"), agent);
  assert.deepEqual(trace.nodes, [{ name: "card", at_ms: 0 }, { name: "ok", at_ms: at + 2000 }]);
  assert.equal(trace.keys.map((k) => k.keys).join(""), "1234#");
});

Deno.test("FlowCaller plays a collecting node again when the entry matches no route", async () => {
  const at = d(CARD) + 500;
  const agent = new TimedAgent([[at, (l) => l.press("12#")], [
    at + d(CARD) + 500,
    (l) => l.press("9876#"),
  ]]);
  const { trace } = await simulateFlowCall(flowScenario(cardNodes, "card"), agent);
  assert.deepEqual(trace.nodes.map((n) => n.name), ["card", "card", "ok"]);
  assert.deepEqual(trace.nodes[1], { name: "card", at_ms: at });
});

Deno.test("FlowCaller runs a collecting node's timeout between keys", async () => {
  const at = d(CARD) + 500;
  const agent = new TimedAgent([[at, (l) => l.press("12")]]);
  const { trace } = await simulateFlowCall(flowScenario(cardNodes, "card"), agent);
  assert.deepEqual(trace.end, { node: "livekit/hangup", reason: "hangup", at_ms: at + 15000 });
});

Deno.test("FlowCaller ends the call on a routed node's fourth visit", async () => {
  const { trace, outcome } = await simulateFlowCall(
    flowScenario(menuNodes, "menu"),
    new TimedAgent(),
  );
  const play = d(MENU) + 8000;
  assert.deepEqual(trace.nodes, [
    { name: "menu", at_ms: 0 },
    { name: "menu", at_ms: play },
    { name: "menu", at_ms: 2 * play },
  ]);
  assert.deepEqual(trace.end, { node: "menu", reason: "visit_limit", at_ms: 3 * play });
  assert.equal(outcome.stopReason, "user_hangup");
});

Deno.test("FlowCaller counts re-entries through other routes toward the visit limit", async () => {
  const nodes = {
    menu: { say: MENU, routes: [{ match: "1", to: "oops" }] },
    oops: { say: "Not valid.", then: "menu" },
  };
  const plan: [number, (l: CallLine) => void][] = [];
  // Press 1 at the end of each menu play: menu, oops, menu, oops, menu, oops, (4th) menu.
  let t = 0;
  for (let i = 0; i < 3; i++) {
    t += d(MENU) + 10;
    plan.push([t, (l) => l.press("1")]);
    t += d("Not valid.") - 10;
  }
  const { trace } = await simulateFlowCall(flowScenario(nodes, "menu"), new TimedAgent(plan));
  assert.deepEqual(trace.nodes.map((n) => n.name), [
    "menu",
    "oops",
    "menu",
    "oops",
    "menu",
    "oops",
  ]);
  assert.equal(trace.end.node, "menu");
  assert.equal(trace.end.reason, "visit_limit");
});

const HOLD = "Please hold.";
const holdNodes = {
  hold: { say: HOLD, timeout: { after_ms: 4000, to: "desk" } },
  desk: { say: "Desk here.", then: "livekit/hangup" },
};

Deno.test("FlowCaller leaves a hold once the agent has been silent for the timeout after the prompt", async () => {
  const { trace } = await simulateFlowCall(flowScenario(holdNodes, "hold"), new TimedAgent());
  // The hold is marked as one (the transcript shows it); the desk, an announcement, is not.
  assert.deepEqual(trace.nodes, [{ name: "hold", at_ms: 0, hold: true }, {
    name: "desk",
    at_ms: d(HOLD) + 4000,
  }]);
});

Deno.test("FlowCaller restarts a node's timeout when the agent speaks", async () => {
  const said = "Hello there";
  const agent = new TimedAgent([[d(HOLD) + 3000, (l) => l.say(said)]]);
  const { trace } = await simulateFlowCall(flowScenario(holdNodes, "hold"), agent);
  assert.deepEqual(trace.nodes[1], { name: "desk", at_ms: d(HOLD) + 3000 + d(said) + 4000 });
});

Deno.test("FlowCaller cuts a routed prompt off when a key arrives during it (barge-in)", async () => {
  const agent = new TimedAgent([[1000, (l) => l.press("1")]]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario(menuNodes, "menu"), agent);
  assert.deepEqual(trace.nodes, [{ name: "menu", at_ms: 0 }, { name: "sales", at_ms: 1000 }]);
  const first = agentSaw.find((e) => e.type === "speech");
  assert.ok(first?.type === "speech" && first.interrupted === true);
  assert.ok(MENU.startsWith(first.text) && first.text.length < MENU.length);
  assert.equal(first.at, 1000);
});

Deno.test("FlowCaller ignores keys at a node without routes but traces them", async () => {
  const agent = new TimedAgent([[200, (l) => l.press("5")]]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario(holdNodes, "hold"), agent);
  assert.deepEqual(trace.keys, [{ keys: "5", at_ms: 200, node: "hold" }]);
  assert.deepEqual(trace.nodes.map((n) => n.name), ["hold", "desk"]);
  const hold = agentSaw.find((e) => e.type === "speech");
  assert.ok(hold?.type === "speech" && hold.text === HOLD && !hold.interrupted);
});

Deno.test("FlowCaller goes to `then` when an announcement ends, and the agent hears it first", async () => {
  const nodes = {
    hello: { say: "Welcome.", speaker: "MACHINE" as const, then: "bye" },
    bye: { say: "Goodbye.", then: "livekit/hangup" },
  };
  const { trace, agentSaw } = await simulateFlowCall(
    flowScenario(nodes, "hello"),
    new TimedAgent(),
  );
  assert.deepEqual(trace.nodes, [
    { name: "hello", at_ms: 0 },
    { name: "bye", at_ms: d("Welcome.") },
  ]);
  const speech = agentSaw.filter((e) => e.type === "speech");
  assert.deepEqual(
    speech.map((e) => e.type === "speech" && [e.text, e.voice]),
    [["Welcome.", "MACHINE"], ["Goodbye.", "VOICE"]],
  );
  assert.equal(agentSaw.at(-1)?.type, "hangup");
});

Deno.test("FlowCaller's unavailable number announces in a machine voice and hangs up", async () => {
  const { trace, agentSaw } = await simulateFlowCall(
    flowScenario({}, "livekit/unavailable"),
    new TimedAgent(),
  );
  assert.deepEqual(trace, {
    start: "livekit/unavailable",
    nodes: [],
    keys: [],
    end: { node: "livekit/unavailable", reason: "unavailable", at_ms: d(UNAVAILABLE_PROMPT) },
  });
  assert.ok(
    agentSaw.some((e) =>
      e.type === "speech" && e.voice === "MACHINE" && e.text === UNAVAILABLE_PROMPT
    ),
  );
  assert.ok(!agentSaw.some((e) => e.type === "beep"));
});

const screenerNodes = {
  screen: {
    say: "Who is calling?",
    instructions: "Screen calls for Sam.",
    speaker: "MACHINE" as const,
    then: "sam",
    timeout: { after_ms: 10000, to: "livekit/hangup" },
  },
  sam: {
    say: "Hi, this is Sam.",
    instructions: "You are Sam.",
    timeout: { after_ms: 15000, to: "livekit/hangup" },
  },
};

Deno.test("FlowCaller's stand-in screener answers the agent once and follows `then`", async () => {
  const intro = "This is Alex from the clinic.";
  const agent = new TimedAgent([[d("Who is calling?") + 500, (l) => l.say(intro)]]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario(screenerNodes, "screen"), agent);
  const heard = agentSaw.flatMap((e) => e.type === "speech" ? [e.text] : []);
  assert.deepEqual(heard, ["Who is calling?", STAND_IN_SCREENER_ACK, "Hi, this is Sam."]);
  const answeredAt = d("Who is calling?") + 500 + d(intro);
  assert.deepEqual(trace.nodes[1], { name: "sam", at_ms: answeredAt + d(STAND_IN_SCREENER_ACK) });
  // Sam waits 15 s for the agent after his greeting, then hangs up.
  assert.deepEqual(trace.end, {
    node: "livekit/hangup",
    reason: "hangup",
    at_ms: answeredAt + d(STAND_IN_SCREENER_ACK) + d("Hi, this is Sam.") + 15000,
  });
});

Deno.test("FlowCaller's screener times out when the agent never answers", async () => {
  const { trace } = await simulateFlowCall(flowScenario(screenerNodes, "screen"), new TimedAgent());
  assert.deepEqual(trace.nodes.map((n) => n.name), ["screen"]);
  assert.deepEqual(trace.end.at_ms, d("Who is calling?") + 10000);
});

Deno.test("FlowCaller's stand-in person acknowledges once, then only listens", async () => {
  const agent = new TimedAgent([
    [2000, (l) => l.say("Calling about the invoice.")],
    [8000, (l) => l.say("Are you still there?")],
    [12000, (l) => l.hangUp()],
  ]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario({}, undefined), agent);
  const heard = agentSaw.flatMap((e) => e.type === "speech" ? [e.text] : []);
  assert.deepEqual(heard, [STAND_IN_OPENING, STAND_IN_PERSON_ACK]);
  assert.equal(trace.start, "(persona)");
  assert.deepEqual(trace.end, { node: "(persona)", reason: "agent_hangup", at_ms: 12000 });
});

Deno.test("FlowCaller speaks instructions through the persona with the node's conversation", async () => {
  const calls: Parameters<PersonaSpeaker["reply"]>[0][] = [];
  const persona: PersonaSpeaker = {
    reply(input) {
      calls.push(structuredClone(input));
      return Promise.resolve(
        input.history.length === 0 ? "Sam speaking." : `Reply ${calls.length}.`,
      );
    },
  };
  const nodes = { sam: { instructions: "You are Sam. Confirm the visit." } };
  const agent = new TimedAgent([
    [3000, (l) => l.say("Hi Sam, about tomorrow.")],
    [9000, (l) => l.say("Great, goodbye.")],
    [15000, (l) => l.hangUp()],
  ]);
  const scenario = flowScenario(nodes, "sam", {
    agent: { prompt: "", tools: [], userdata: { who: "Kim" } },
  });
  const { agentSaw } = await simulateFlowCall(scenario, agent, { persona });
  const heard = agentSaw.flatMap((e) => e.type === "speech" ? [e.text] : []);
  assert.deepEqual(heard, ["Sam speaking.", "Reply 2.", "Reply 3."]);
  assert.deepEqual(calls[0], {
    instructions: "You are Sam. Confirm the visit.",
    userdata: { who: "Kim" },
    history: [],
  });
  assert.deepEqual(calls[2]!.history, [
    { speaker: "far_end", text: "Sam speaking." },
    { speaker: "agent", text: "Hi Sam, about tomorrow." },
    { speaker: "far_end", text: "Reply 2." },
    { speaker: "agent", text: "Great, goodbye." },
  ]);
});

Deno.test("FlowCaller fails the call as a model error when the persona fails", async () => {
  const persona: PersonaSpeaker = { reply: () => Promise.reject(new Error("503 from model")) };
  const agent = new TimedAgent([[1000, (l) => l.say("Hello?")]]);
  const { outcome } = await simulateFlowCall(
    flowScenario({ p: { say: "Hi.", instructions: "Be brief." } }, "p"),
    agent,
    { persona },
  );
  assert.equal(outcome.error?.kind, "model_error");
  assert.match(outcome.error!.message, /503 from model/);
});

Deno.test("FlowCaller records a call the bridge ended for silence", async () => {
  const nodes = { menu: { say: MENU, routes: [{ match: "1", to: "livekit/hangup" }] } };
  // The agent acts once (a key no route takes), then says nothing more.
  const agent = new TimedAgent([[d(MENU) + 100, (l) => l.press("9")]]);
  const { trace } = await simulateFlowCall(flowScenario(nodes, "menu"), agent);
  assert.equal(trace.end?.reason, "silence");
  assert.equal(trace.end?.node, "menu");
});

Deno.test("FlowCaller records an error when the agent never acts (agent_silent)", async () => {
  const nodes = { menu: { say: MENU, routes: [{ match: "1", to: "livekit/hangup" }] } };
  const { trace, outcome } = await simulateFlowCall(flowScenario(nodes, "menu"), new TimedAgent());
  assert.equal(outcome.error?.kind, "agent_silent");
  assert.deepEqual(trace.end, { node: "menu", reason: "error", at_ms: d(MENU) + 30000 });
});

Deno.test("FlowCaller records the agent hanging up", async () => {
  const agent = new TimedAgent([[500, (l) => l.hangUp("done")]]);
  const { trace } = await simulateFlowCall(flowScenario(holdNodes, "hold"), agent);
  assert.deepEqual(trace.end, { node: "hold", reason: "agent_hangup", at_ms: 500 });
});

Deno.test("FlowCaller sends the agent only what a real callee would", async () => {
  const nodes = {
    zq_menu_node: {
      say: MENU,
      speaker: "MACHINE" as const,
      routes: [{ match: "1", to: "zq_screen_node" }],
    },
    zq_screen_node: {
      say: "Who is calling?",
      instructions: "zq secret instructions",
      then: "zq_vm_node",
    },
    zq_vm_node: { say: "Leave a message.", then: "livekit/voicemail" },
  };
  const scenario = flowScenario(nodes, "zq_menu_node", {
    expect: {
      db_state_assertions: [],
      nl_assertions: [],
      agent_expectations: "zq expectation",
      flow: { end: "zq_vm_node" },
    },
  });
  const agent = new TimedAgent([
    [d(MENU) + 10, (l) => l.press("1")],
    [d(MENU) + 2000, (l) => l.say("It is Alex.")],
    [30000, (l) => l.say("Please call back.")],
  ]);
  const { agentSaw } = await simulateFlowCall(scenario, agent, {
    voicemailBox: { beep: true, silence_wait_s: 2, menu: false },
  });
  const wire = JSON.stringify(agentSaw);
  assert.ok(!/zq|livekit|instructions|expect/i.test(wire), wire);
  const kinds = new Set(agentSaw.map((e) => e.type));
  for (const k of kinds) {
    assert.ok(["call_start", "speech_start", "speech", "beep", "hangup"].includes(k), k);
  }
  assert.ok(kinds.has("beep"));
});

Deno.test("FlowCaller cuts a collecting node's prompt at the first key", async () => {
  const agent = new TimedAgent([[800, (l) => l.press("1")], [1500, (l) => l.press("234#")]]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario(cardNodes, "card"), agent);
  const prompt = agentSaw.find((e) => e.type === "speech");
  assert.ok(prompt?.type === "speech" && prompt.interrupted === true && prompt.at === 800);
  assert.deepEqual(trace.nodes.map((n) => n.name), ["card", "ok"]);
});

Deno.test("FlowCaller restarts a hold's timeout on a key, though the key goes nowhere", async () => {
  const agent = new TimedAgent([[d(HOLD) + 2000, (l) => l.press("0")]]);
  const { trace } = await simulateFlowCall(flowScenario(holdNodes, "hold"), agent);
  assert.deepEqual(trace.nodes[1], { name: "desk", at_ms: d(HOLD) + 2000 + 4000 });
});

/** An agent that cannot be reached, or that breaks `at` ms into the call. */
class BrokenAgent extends TimedAgent {
  constructor(readonly at?: number) {
    super(
      at === undefined
        ? []
        : [[at, (l) => l.fail(new ParticipantError("agent_disconnected", "socket closed"))]],
    );
  }
  override start(line: CallLine): Promise<void> {
    if (this.at === undefined) {
      return Promise.reject(new ParticipantError("agent_unreachable", "connection refused"));
    }
    return super.start(line);
  }
}

Deno.test("FlowCaller records a call that ends in an error as an error, not the agent's hangup", async () => {
  for (const at of [undefined, 2000]) {
    const { trace, outcome } = await simulateFlowCall(
      flowScenario(holdNodes, "hold"),
      new BrokenAgent(at),
    );
    const label = at === undefined ? "unreachable" : "broke mid-call";
    assert.equal(outcome.stopReason, "error", label);
    assert.deepEqual(trace.end, { node: "hold", reason: "error", at_ms: at ?? 0 }, label);
  }
});

Deno.test("FlowCaller's unavailable number ends as unavailable when the agent hangs up as the announcement ends", async () => {
  const D = d(UNAVAILABLE_PROMPT);
  const hangUpAt = (at: number) => new TimedAgent([[at, (l) => l.hangUp()]]);
  const agents: [string, TimedAgent][] = [
    ["a timer set before the call", hangUpAt(D)],
    [
      "on hearing the announcement",
      new TimedAgent([], (e, l) => e.type === "speech" && l.hangUp()),
    ],
    [
      "a timer set when the announcement starts",
      new TimedAgent([], (e, l) => e.type === "speech_start" && l.clock.timer(D, () => l.hangUp())),
    ],
    [
      "a zero-delay step after hearing it",
      new TimedAgent([], (e, l) => e.type === "speech" && l.clock.timer(0, () => l.hangUp())),
    ],
  ];
  for (const [label, agent] of agents) {
    const { trace } = await simulateFlowCall(flowScenario({}, "livekit/unavailable"), agent);
    assert.deepEqual(
      trace.end,
      { node: "livekit/unavailable", reason: "unavailable", at_ms: D },
      label,
    );
  }
  // Entered from a node: the announcement is over at the node's end plus its length.
  const intro = { intro: { say: "Hello.", then: "livekit/unavailable" } };
  const onLastWord = new TimedAgent([], (e, l) => {
    if (e.type === "speech" && e.text === UNAVAILABLE_PROMPT) l.hangUp();
  });
  const fromNode = await simulateFlowCall(flowScenario(intro, "intro"), onLastWord);
  assert.deepEqual(fromNode.trace.end, {
    node: "livekit/unavailable",
    reason: "unavailable",
    at_ms: d("Hello.") + D,
  });
  // Before the announcement is over, hanging up is the agent's.
  const { trace } = await simulateFlowCall(
    flowScenario({}, "livekit/unavailable"),
    hangUpAt(D - 1),
  );
  assert.deepEqual(trace.end, {
    node: "livekit/unavailable",
    reason: "agent_hangup",
    at_ms: D - 1,
  });
});
