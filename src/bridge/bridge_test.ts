import assert from "node:assert/strict";
import { Environment } from "../env/environment.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { OracleAgent } from "../participants/oracle.ts";
import { NoopAgent } from "../participants/noop.ts";
import { ScriptedUser } from "../participants/scripted_user.ts";
import { type CallSpec, DEFAULT_LIMITS, runCall } from "./bridge.ts";
import type { CallEvent, CallLine, CallSetup, Participant } from "./call.ts";
import { ParticipantError } from "./call.ts";
import { SimClock } from "../clock/clock.ts";
import { dbHash } from "../canonical/hash.ts";
import { SEND_DTMF_TOOL, toolSpecs } from "./tool_specs.ts";

function env() {
  return new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
}

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "test",
  domain: "test_counter",
  prompt: "",
  // Every tool of the side, as a trial offers them (send_dtmf to the agent too).
  tools: [
    ...toolSpecs(counterDomain, side, []),
    ...(side === "agent" ? [SEND_DTMF_TOOL] : []),
  ],
  seed: "s",
});

function spec(agent: Participant, user: Participant, over: Partial<CallSpec> = {}): CallSpec {
  return {
    env: env(),
    agent,
    user,
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
    ...over,
  };
}

/** A participant that does nothing unless told to. */
class Silent implements Participant {
  info = { kind: "silent" };
  line?: CallLine;
  events: CallEvent[] = [];
  #connected!: () => void;
  /** Resolves when the call connects (call_start), before simulated time moves on. */
  connected = new Promise<void>((r) => (this.#connected = r));
  start(line: CallLine) {
    this.line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent) {
    this.events.push(e);
    if (e.type === "call_start") this.#connected();
  }
  close() {
    return Promise.resolve();
  }
}

Deno.test("oracle and scripted caller reach the gold state and the agent ends the call", async () => {
  const s = counterScenario();
  const e = env();
  const out = await runCall(spec(
    new OracleAgent(s.expect.reference_actions!),
    new ScriptedUser({ opening: s.user.opening }),
    { env: e },
  ));
  assert.equal(out.stopReason, "agent_end");
  assert.equal(out.cleanExit, true);
  assert.equal(e.hashes().db_sha256, dbHash({ count: 5 }));
  assert.equal(e.hashes().user_db_sha256, dbHash({ pressed: ["ok"] }));
  assert.deepEqual(e.actions.map((a) => [a.action_type, a.side]), [["add", "agent"], [
    "add",
    "agent",
  ], [
    "press_button",
    "user",
  ]]);
  assert.equal(out.turns[0]!.speaker, "agent");
  assert.equal(out.turns[1]!.text, "Please add five.");
  // The caller's first utterance starts only once the greeting has ended.
  assert.ok(out.turns[1]!.start_ms >= out.turns[0]!.end_ms);
});

Deno.test("noop agent leaves the world untouched and exits cleanly", async () => {
  const e = env();
  const out = await runCall(spec(new NoopAgent(), new ScriptedUser({}), { env: e }));
  assert.equal(out.stopReason, "agent_end");
  assert.equal(e.hashes().db_sha256, dbHash({ count: 0 }));
  assert.equal(out.toolCalls.length, 1);
});

Deno.test("30 s of silence ends the call, measured on the simulated clock", async () => {
  const t0 = performance.now();
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  agent.line!.say("Hello.");
  const out = await p;
  assert.equal(out.stopReason, "silence");
  assert.equal(out.error, undefined, "a caller who goes quiet is no error");
  assert.equal(out.durationMs, out.turns[0]!.end_ms + 30_000);
  assert.equal(out.cleanExit, false);
  assert.ok(performance.now() - t0 < 1000, "a simulated silence costs no real time");
});

Deno.test("an agent that never acts is agent_silent after the silence window", async () => {
  const user = new Silent();
  const p = runCall(spec(new Silent(), user, { firstSpeaker: "user" }));
  await user.connected;
  user.line!.say("Hello, is anyone there?");
  const out = await p;
  assert.equal(out.stopReason, "error");
  assert.equal(out.error?.kind, "agent_silent");
  assert.equal(out.error?.side, "agent");
  assert.match(out.error!.message, /the agent never spoke, pressed a key or called a tool/);
  assert.equal(out.durationMs, out.turns[0]!.end_ms + 30_000);

  // Nobody speaking at all: the agent, who was to open, is the silent one.
  const dead = await runCall(spec(new Silent(), new Silent()));
  assert.equal(dead.error?.kind, "agent_silent");
  assert.equal(dead.durationMs, 30_000);
});

Deno.test("an agent that only called a tool or pressed a key is not agent_silent", async () => {
  for (const act of ["tool", "keys"] as const) {
    const agent = new Silent();
    const p = runCall(spec(agent, new Silent()));
    await agent.connected;
    if (act === "tool") await agent.line!.callTool("add", { n: 1 });
    else agent.line!.press("1");
    const out = await p;
    assert.equal(out.stopReason, "silence", act);
    assert.equal(out.error, undefined, act);
  }
});

Deno.test("tool calls are bounded per turn: 100 between two turns, the 101st is protocol_error", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  for (let i = 0; i < 100; i++) assert.ok((await agent.line!.callTool("add", { n: 1 })).ok);
  agent.line!.say("Done.");
  for (let i = 0; i < 100; i++) assert.ok((await agent.line!.callTool("add", { n: 1 })).ok);
  const refused = await agent.line!.callTool("add", { n: 1 });
  assert.equal(refused.ok, false);
  const out = await p;
  assert.deepEqual(out.error, {
    kind: "protocol_error",
    message: "the agent made more than 100 tool calls in one turn",
    side: "agent",
  });
  assert.equal(out.toolCalls.length, 200, "the refused call ran nothing");
});

Deno.test("an agent that talks without ending its turn is not agent_silent; silence counts from its last words", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  const clock = agent.line!.clock;
  // Words of one turn keep coming for 45 s (a remote bot streaming), then stop.
  for (let s = 0; s < 45; s++) {
    agent.line!.active!();
    await clock.sleep(1000);
  }
  const out = await p;
  assert.equal(out.error, undefined, out.error?.message);
  assert.equal(out.stopReason, "silence");
  assert.equal(out.durationMs, 44_000 + 30_000);
});

Deno.test("silence is counted from the end of the last utterance", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  agent.line!.say("x".repeat(100)); // 6 s of speech
  const out = await p;
  assert.equal(out.stopReason, "silence");
  assert.equal(out.durationMs, 6_000 + 30_000);
});

Deno.test("the duration limit ends a call that never goes quiet", async () => {
  class Chatty extends Silent {
    override onEvent(e: CallEvent) {
      if (e.type === "speech" || (e.type === "call_start" && e.you_speak_first)) {
        this.line!.say("And another thing.");
      }
    }
  }
  const out = await runCall(
    spec(new Chatty(), new Chatty(), {
      limits: { ...DEFAULT_LIMITS, maxDurationMs: 60_000, maxTurns: 10_000 },
    }),
  );
  assert.equal(out.stopReason, "max_duration");
  assert.equal(out.durationMs, 60_000);
});

Deno.test("the turn guard ends a runaway call", async () => {
  class Chatty extends Silent {
    override onEvent(e: CallEvent) {
      if (e.type === "speech" || (e.type === "call_start" && e.you_speak_first)) {
        this.line!.say("More.");
      }
    }
  }
  const out = await runCall(
    spec(new Chatty(), new Chatty(), { limits: { ...DEFAULT_LIMITS, maxTurns: 7 } }),
  );
  assert.equal(out.stopReason, "max_turns");
  assert.equal(out.turns.length, 8);
});

Deno.test("a participant that breaks fails the trial with its error kind", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  agent.line!.fail(new ParticipantError("agent_disconnected", "socket closed"));
  const out = await p;
  assert.equal(out.stopReason, "error");
  assert.deepEqual(out.error, {
    kind: "agent_disconnected",
    message: "socket closed",
    side: "agent",
  });
});

Deno.test("the reference's <exit> text from the agent ends the call cleanly", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  agent.line!.say("<exit>The task is finished.</exit>");
  const out = await p;
  assert.equal(out.stopReason, "agent_end");
  assert.equal(out.cleanExit, true);
  assert.equal(out.turns.length, 0);
});

Deno.test("keys are relayed to the other side and recorded; invalid keys are not", async () => {
  const agent = new Silent();
  const user = new Silent();
  const p = runCall(spec(agent, user));
  await agent.connected;
  const reply = await agent.line!.callTool("send_dtmf", { keys: "12#" });
  assert.equal(reply.ok, true);
  agent.line!.press("9x");
  agent.line!.hangUp();
  const out = await p;
  assert.deepEqual(out.dtmf.map((d) => d.keys), ["12#"]);
  assert.ok(user.events.some((e) => e.type === "dtmf" && e.keys === "12#"));
  assert.equal(out.stopReason, "agent_hangup");
});

Deno.test("a tool error reaches the agent as a result and changes nothing", async () => {
  const agent = new Silent();
  const e = env();
  const p = runCall(spec(agent, new Silent(), { env: e }));
  await agent.connected;
  const bad = await agent.line!.callTool("add", { n: "two" });
  assert.equal(bad.ok, false);
  const unknown = await agent.line!.callTool("press_button", { button: "x" });
  assert.equal(unknown.ok, false, "the agent cannot use the caller's phone tools");
  assert.equal((unknown.result as { error_type: string }).error_type, "unknown_tool");
  agent.line!.hangUp();
  await p;
  assert.equal(e.hashes().db_sha256, dbHash({ count: 0 }));
});

Deno.test("response latency runs from the end of the caller's utterance to the agent's reply", async () => {
  class SlowAgent extends Silent {
    override onEvent(e: CallEvent) {
      if (e.type === "speech") {
        this.line!.clock.timer(1200, () => this.line!.say("Sure.", { ttftMs: 800 }));
      }
    }
  }
  const user = new Silent();
  const p = runCall(spec(new SlowAgent(), user));
  await user.connected;
  user.line!.say("Hello there.");
  user.line!.clock.timer(10_000, () => user.line!.hangUp());
  const out = await p;
  assert.deepEqual(out.latency, [{ turn: 1, response_ms: 1200, ttft_ms: 800 }]);
});

Deno.test("cutting off an utterance delivers what was said so far", async () => {
  const agent = new Silent();
  const user = new Silent();
  const p = runCall(spec(agent, user, { firstSpeaker: "user" }));
  await user.connected;
  user.line!.say("For sales, press one. For support, press two. For billing, press three.");
  user.line!.clock.timer(1500, () => user.line!.stopSpeaking());
  user.line!.clock.timer(5000, () => user.line!.hangUp());
  const out = await p;
  const heard = agent.events.find((e) => e.type === "speech");
  assert.ok(heard && heard.type === "speech" && heard.interrupted);
  assert.equal(heard.text, "For sales, press one.");
  assert.equal(out.turns[0]!.interrupted, true);
});

Deno.test("the oracle asks for a phone step after its own writes in one utterance, and every step is done", async () => {
  const s = counterScenario({
    expect: {
      reference_actions: [
        { side: "agent", name: "add", arguments: { n: 1 } },
        { side: "user", name: "press_button", arguments: { button: "a" } },
        { side: "agent", name: "add", arguments: { n: 1 } },
        { side: "user", name: "press_button", arguments: { button: "a" } },
      ],
      db_state_assertions: [],
      nl_assertions: [],
    },
  });
  const e = env();
  const out = await runCall(spec(
    new OracleAgent(s.expect.reference_actions!),
    new ScriptedUser({ opening: "Hi." }),
    { env: e },
  ));
  assert.equal(out.stopReason, "agent_end");
  assert.equal(e.hashes().user_db_sha256, dbHash({ pressed: ["a", "a"] }));
  assert.equal(e.hashes().db_sha256, dbHash({ count: 2 }));
});

Deno.test("words after end_conversation are not heard", async () => {
  const agent = new Silent();
  const p = runCall(spec(agent, new Silent()));
  await agent.connected;
  agent.line!.say("Goodbye.");
  await agent.line!.callTool("end_conversation", {});
  agent.line!.say("One more thing!");
  const out = await p;
  assert.equal(out.stopReason, "agent_end");
  assert.deepEqual(out.turns.map((t) => t.text), ["Goodbye."]);
});

Deno.test("a hangup cuts what is being said and drops what was still to be said", async () => {
  const agent = new Silent();
  const user = new Silent();
  const p = runCall(spec(agent, user));
  await agent.connected;
  agent.line!.say("One two three four five six seven eight nine ten eleven twelve thirteen.");
  agent.line!.say("This was never said.");
  user.line!.clock.timer(2000, () => user.line!.hangUp());
  const out = await p;
  assert.equal(out.stopReason, "user_hangup");
  assert.equal(out.turns.length, 1);
  assert.equal(out.turns[0]!.interrupted, true);
  assert.equal(out.turns[0]!.end_ms, 2000);
  assert.ok(out.turns[0]!.text.length < 40 && out.turns[0]!.text.startsWith("One two"));
  const heard = user.events.filter((e) => e.type === "speech");
  assert.deepEqual(heard.map((e) => e.type === "speech" && [e.text, e.interrupted]), [[
    out.turns[0]!.text,
    true,
  ]]);
  assert.equal(user.events.at(-1)!.type, "hangup", "the cut-off words arrive before the hangup");
});

Deno.test("end_conversation ends the call once the agent's last words are spoken", async () => {
  const agent = new Silent();
  const user = new Silent();
  const p = runCall(spec(agent, user));
  await agent.connected;
  agent.line!.say("Thank you for calling, goodbye."); // 31 chars: 1860 ms
  await agent.line!.callTool("end_conversation", {});
  const out = await p;
  assert.equal(out.stopReason, "agent_end");
  assert.equal(out.durationMs, 1860);
  assert.deepEqual(out.turns.map((t) => [t.text, t.interrupted]), [[
    "Thank you for calling, goodbye.",
    undefined,
  ]]);
  assert.ok(
    user.events.some((e) => e.type === "speech" && e.text === "Thank you for calling, goodbye."),
  );
});

Deno.test("a tool the side was not offered is refused with unknown_tool and runs nothing", async () => {
  const agent = new Silent();
  const e = env();
  const offered = setup("agent").tools.filter((t) => t.name !== "send_dtmf");
  const p = runCall(spec(agent, new Silent(), {
    env: e,
    agentSetup: { ...setup("agent"), tools: offered },
  }));
  await agent.connected;
  const reply = await agent.line!.callTool("send_dtmf", { keys: "1" });
  assert.equal(reply.ok, false);
  assert.deepEqual(reply.result, {
    status: "error",
    error_type: "unknown_tool",
    message: "There is no tool named 'send_dtmf'. Use one of the available tools.",
    available_tools: offered.map((t) => t.name).sort(),
  });
  agent.line!.say("Bye.");
  agent.line!.hangUp("done", { agentEnd: true });
  const out = await p;
  assert.deepEqual(out.dtmf, [], "no key was pressed");
  assert.equal(out.toolCalls[0]!.ok, false);
  assert.equal(out.stopReason, "agent_end");
});

Deno.test("<exit> inside the agent's speech: the words are said, then the call ends as agent_end", async () => {
  const agent = new Silent();
  const user = new Silent();
  const p = runCall(spec(agent, user));
  await agent.connected;
  agent.line!.say("Have a nice day. <exit>The task is finished.</exit>");
  const out = await p;
  assert.equal(out.stopReason, "agent_end");
  assert.equal(out.cleanExit, true);
  assert.deepEqual(out.turns.map((t) => t.text), ["Have a nice day."]);
  assert.ok(user.events.some((e) => e.type === "speech" && e.text === "Have a nice day."));
});

Deno.test("an agent's hangUp as agentEnd is agent_end; a plain one stays agent_hangup", async () => {
  for (const agentEnd of [true, false]) {
    const agent = new Silent();
    const p = runCall(spec(agent, new Silent()));
    await agent.connected;
    agent.line!.say("Bye.");
    agent.line!.hangUp("done", { agentEnd });
    assert.equal((await p).stopReason, agentEnd ? "agent_end" : "agent_hangup");
  }
});
