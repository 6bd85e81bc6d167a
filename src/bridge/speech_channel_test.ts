import assert from "node:assert/strict";
import { z } from "zod";
import { Environment } from "../env/environment.ts";
import type { Domain, ToolDef } from "../domains/domain.ts";
import { counterDomain } from "../testing/counter_domain.ts";
import { pcm16 } from "../audio/pcm.ts";
import { textDurationMs, utterance } from "../speech/utterance.ts";
import type { Turn } from "./outcome.ts";
import { type CallSpec, DEFAULT_LIMITS, runCall } from "./bridge.ts";
import type { CallEvent, CallLine, Clock, Participant } from "./call.ts";
import { SimClock } from "../clock/clock.ts";
import { type LineUtterance, SpeechChannel } from "./speech_channel.ts";

function channel(clock: SimClock, timed = true) {
  const log: string[] = [];
  const ch = new SpeechChannel("agent", clock, timed, {
    began: (u) => log.push(`begin ${u.utterance.text} @${clock.now()}`),
    finished: (u, cut) => log.push(`end ${u.turn.text}${cut ? " (cut)" : ""} @${clock.now()}`),
  });
  const say = (text: string): LineUtterance => {
    const u = utterance(text);
    return ch.say(u, ch.plan(u));
  };
  return { ch, log, say };
}

Deno.test("SpeechChannel queues utterances back to back and ends each at its duration", async () => {
  const clock = new SimClock();
  const { log, say } = channel(clock);
  const a = say("hello there");
  const b = say("second");
  assert.deepEqual([a.start, a.end], [0, textDurationMs("hello there")]);
  assert.deepEqual([b.start, b.end], [a.end, a.end + textDurationMs("second")]);
  await clock.run(() => false);
  assert.deepEqual(log, [
    "begin hello there @0",
    `end hello there @${a.end}`,
    `begin second @${a.end}`,
    `end second @${b.end}`,
  ]);
});

Deno.test("SpeechChannel.stop cuts the utterance at a word and drops the queue", async () => {
  const clock = new SimClock();
  const { ch, log, say } = channel(clock);
  const a = say("one two three four five six seven eight");
  const queued = say("never said");
  await clock.advance(a.end / 2);
  const dropped = ch.stop();
  assert.deepEqual(dropped, [queued.turn]);
  assert.equal(a.turn.interrupted, true);
  assert.equal(a.turn.end_ms, clock.now());
  assert.ok(a.turn.end_ms < a.end);
  assert.ok(
    a.turn.text.length > 0 && "one two three four five six seven eight".startsWith(a.turn.text),
  );
  assert.match(log.at(-1)!, /\(cut\)/);
  assert.equal(ch.speaking, undefined);
});

Deno.test("SpeechChannel.hangUp reports what was heard and what was never said", async () => {
  const clock = new SimClock();
  const { ch, say } = channel(clock);
  const a = say("alpha beta gamma delta epsilon");
  const b = say("queued words");
  await clock.advance(a.end - 100);
  const { unsaid, heard } = ch.hangUp();
  assert.equal(heard, a);
  assert.deepEqual(unsaid, [b.turn]);
  // A hang-up before the first word ends leaves nothing heard: the turn is unsaid.
  const clock2 = new SimClock();
  const two = channel(clock2);
  const c = two.say("words here");
  await clock2.advance(1);
  const r = two.ch.hangUp();
  assert.equal(r.heard, undefined);
  assert.deepEqual(r.unsaid, [c.turn]);
});

Deno.test("an utterance with audio lasts as long as its audio, whatever its text", () => {
  const oneSecond = pcm16(new Int16Array(16_000), 16_000);
  assert.equal(utterance("hi", undefined, oneSecond).durationMs, 1000);
  assert.equal(utterance("hi").durationMs, textDurationMs("hi"));
  const clock = new SimClock();
  const ch = new SpeechChannel("user", clock, true, { began() {}, finished() {} });
  const u = utterance("a very long sentence indeed, much longer than a second", "VOICE", oneSecond);
  const t: Turn = ch.plan(u);
  assert.deepEqual([t.start_ms, t.end_ms, t.voice], [0, 1000, "VOICE"]);
});

// --- the call's tool effects and clock, through the domain contract -------------

/** Calls one tool when the call starts, then says nothing more. */
class OneTool implements Participant {
  info = { kind: "one_tool" };
  line?: CallLine;
  constructor(readonly tool: string, readonly args: unknown = {}) {}
  start(line: CallLine) {
    this.line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent) {
    if (e.type === "call_start") {
      this.line!.say("One moment.");
      void this.line!.callTool(this.tool, this.args);
    }
  }
  close() {
    return Promise.resolve();
  }
}

class Listener implements Participant {
  info = { kind: "listener" };
  events: CallEvent[] = [];
  start() {
    return Promise.resolve();
  }
  onEvent(e: CallEvent) {
    this.events.push(e);
  }
  close() {
    return Promise.resolve();
  }
}

/** A hand-over tool whose name does not say "transfer": only its effect marks it. */
const handOver: ToolDef<Record<string, never>> = {
  name: "escalate_to_person",
  side: "agent",
  kind: "write",
  effect: "transfer",
  description: "Hand the caller to a person.",
  args: z.object({}).strict(),
  run: () => ({ ok: true, result: "ok", exit: "<exit>Transfer complete.</exit>" }),
};

/** Ends the call by its effect alone, with no exit text. */
const wrapUp: ToolDef<Record<string, never>> = {
  name: "wrap_up",
  side: "agent",
  kind: "system",
  effect: "end_call",
  description: "End the call.",
  args: z.object({}).strict(),
  run: () => ({ ok: true, result: "bye" }),
};

/** Named like a transfer, but with no effect: it must not end the call. */
const transferNotes: ToolDef<Record<string, never>> = {
  name: "read_transfer_policy",
  side: "agent",
  kind: "read",
  description: "Read the transfer policy.",
  args: z.object({}).strict(),
  run: () => ({ ok: true, result: "policy", exit: "<exit>not an end</exit>" }),
};

/** Presses keys by its effect (a domain's own keypad tool). */
const keypad: ToolDef<{ keys: string }> = {
  name: "keypad",
  side: "agent",
  kind: "system",
  effect: "dtmf",
  description: "Press keys.",
  args: z.object({ keys: z.string() }).strict(),
  run: () => ({ ok: true, result: "unused" }),
};

const effectDomain: Domain = {
  ...counterDomain,
  tools: [...counterDomain.tools, handOver, wrapUp, transferNotes, keypad],
};

function call(agent: Participant, user: Participant, clock: Clock = new SimClock()): CallSpec {
  const setup = (side: "agent" | "user") => ({
    side,
    scenario: "t",
    domain: "test_counter",
    prompt: "",
    // Every tool of the domain is offered (a tool not offered is refused).
    tools: effectDomain.tools.filter((t) => t.side === side).map((t) => ({
      name: t.name,
      description: t.description,
      parameters: {},
    })),
    seed: "s",
  });
  return {
    env: new Environment(effectDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
      today: "2024-05-15",
      seed: "s",
    }),
    agent,
    user,
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock,
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
  };
}

Deno.test("a tool marked transfer ends the call as agent_transfer, whatever its name", async () => {
  const out = await runCall(call(new OneTool("escalate_to_person"), new Listener()));
  assert.equal(out.stopReason, "agent_transfer");
  assert.equal(out.cleanExit, true);
  // After the agent's last words, not before.
  assert.equal(out.durationMs, textDurationMs("One moment."));
});

Deno.test("a tool marked end_call ends the call as agent_end, with or without exit text", async () => {
  const out = await runCall(call(new OneTool("wrap_up"), new Listener()));
  assert.equal(out.stopReason, "agent_end");
});

Deno.test("a tool without an effect never ends the call, even named like a transfer", async () => {
  const out = await runCall(call(new OneTool("read_transfer_policy"), new Listener()));
  assert.equal(out.stopReason, "silence");
});

Deno.test("a tool marked dtmf presses its keys on the line", async () => {
  const user = new Listener();
  const out = await runCall(call(new OneTool("keypad", { keys: "12#" }), user));
  assert.deepEqual(out.dtmf.map((d) => d.keys), ["12#"]);
  assert.ok(user.events.some((e) => e.type === "dtmf" && e.keys === "12#"));
});

Deno.test("the bridge drives any self-driving clock through the Clock interface", async () => {
  // Not a SimClock: only the Clock interface, runUntil included.
  const sim = new SimClock();
  let driven = 0;
  const clock: Clock = {
    simulated: true,
    now: () => sim.now(),
    timer: (ms, fn) => sim.timer(ms, fn),
    sleep: (ms, signal) => sim.sleep(ms, signal),
    runUntil: (done) => {
      driven++;
      return sim.run(done);
    },
  };
  const out = await runCall(call(new OneTool("wrap_up"), new Listener(), clock));
  assert.equal(out.stopReason, "agent_end");
  assert.equal(driven, 1);
});
