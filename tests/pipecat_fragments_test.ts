/**
 * A pipecat-style agent over a real loopback WebSocket: it streams each reply as
 * sentence fragments (`bot-tts-text`, `bot-output`, `bot-llm-text`), with and without
 * `bot-started-speaking`/`bot-stopped-speaking` around them. Each spoken turn must be
 * one turn of the call, and the caller must answer each turn once.
 */
import assert from "node:assert/strict";
import type { CallEvent, CallLine, CallSetup, Participant } from "../src/bridge/call.ts";
import { RealClock, SimClock } from "../src/clock/clock.ts";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import { Environment } from "../src/env/environment.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { FRAGMENT_GAP_MS, joinFragments, RemoteParticipant } from "../src/participants/remote.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { toolSpecs } from "../src/bridge/tool_specs.ts";
import { RecordingLine } from "./_wire.ts";

type Mode = "bracketed-tts" | "bracketed-output" | "unbracketed-output" | "unbracketed-llm";

const REPLIES: Record<string, string[]> = {
  Hello: ["Thanks for calling.", "How can I help you today?"],
  default: ["Let me look that reservation up.", "I found it.", "Your flight leaves Monday."],
  bye: ["Goodbye,", "and have a nice day!"],
};

/** A pipecat-style bot: every `send-text` gets one reply, streamed in fragments. */
function pipecatBot(mode: Mode, gapMs = 60) {
  const sockets: WebSocket[] = [];
  const heard: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    const send = (type: string, data?: unknown) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(rtvi(type, data)));
    };
    socket.onmessage = async (e) => {
      const msg = JSON.parse(e.data as string);
      if (msg.type === "client-ready") return send("bot-ready", { version: "2.1.0" });
      // Says nothing to update_system_prompt, as a reference bot may.
      if (msg.type !== "send-text") return;
      const content: string = msg.data.content;
      heard.push(content);
      const ending = /bye/i.test(content);
      const sentences = REPLIES[content] ?? REPLIES[ending ? "bye" : "default"]!;
      const bracketed = mode.startsWith("bracketed");
      if (mode === "unbracketed-llm" || mode === "bracketed-tts") {
        // The LLM streams first (tokens bring their own spaces).
        send("bot-llm-started");
        for (const [i, s] of sentences.entries()) {
          for (const token of (i > 0 ? " " + s : s).split(/(?= )/)) {
            send("bot-llm-text", { text: token });
          }
        }
        send("bot-llm-stopped");
      }
      if (bracketed) send("bot-started-speaking");
      for (const s of sentences) {
        await new Promise((r) => setTimeout(r, gapMs));
        if (mode === "bracketed-tts") {
          for (const word of s.split(" ")) send("bot-tts-text", { text: word });
        } else if (mode !== "unbracketed-llm") {
          send("bot-output", { text: s, aggregated_by: "sentence" });
        }
      }
      if (bracketed) send("bot-stopped-speaking");
      if (ending) send("server-message", { type: "end", reason: "caller said goodbye" });
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    heard,
    async stop() {
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await server.shutdown();
    },
  };
}

/** A caller that answers every utterance it hears, once. */
class Caller implements Participant {
  info = { kind: "test-caller" };
  #line?: CallLine;
  #script = ["My code is ABC123.", "Great, thanks.", "That is all, bye."];
  start(line: CallLine) {
    this.#line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent) {
    if (e.type !== "speech") return;
    const next = this.#script.shift();
    if (next) this.#line!.say(next);
  }
  close() {
    return Promise.resolve();
  }
}

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "test",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "s",
});

for (
  const mode of [
    "bracketed-tts",
    "bracketed-output",
    "unbracketed-output",
    "unbracketed-llm",
  ] as const
) {
  Deno.test(`a pipecat-style agent streaming fragments (${mode}): one turn per spoken turn, one reply each`, async () => {
    const bot = pipecatBot(mode);
    const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
      today: "2024-05-15",
      seed: "s",
    });
    try {
      const out = await runCall({
        env,
        agent: new RemoteParticipant({ url: bot.url, kick: "Hello", promptReplyWaitMs: 50 }),
        user: new Caller(),
        agentSetup: setup("agent"),
        userSetup: setup("user"),
        clock: new RealClock(),
        limits: DEFAULT_LIMITS,
        firstSpeaker: "agent",
        timedSpeech: false,
      });
      const turns = out.turns.map((t) => `${t.speaker}: ${t.text}`);
      console.log(
        `${mode}: ${out.turns.filter((t) => t.speaker === "agent").length} agent turns, ${
          out.turns.filter((t) => t.speaker === "user").length
        } caller turns, bot heard ${bot.heard.length} send-text`,
      );
      assert.deepEqual(turns, [
        "agent: Thanks for calling. How can I help you today?",
        "user: My code is ABC123.",
        "agent: Let me look that reservation up. I found it. Your flight leaves Monday.",
        "user: Great, thanks.",
        "agent: Let me look that reservation up. I found it. Your flight leaves Monday.",
        "user: That is all, bye.",
        "agent: Goodbye, and have a nice day!",
      ]);
      // One caller reply per agent turn: the bot was asked once per turn.
      assert.deepEqual(bot.heard, [
        "Hello",
        "My code is ABC123.",
        "Great, thanks.",
        "That is all, bye.",
      ]);
      assert.equal(out.stopReason, "agent_end");
      assert.equal(out.error, undefined);
    } finally {
      await bot.stop();
    }
  });
}

Deno.test(`unbracketed fragments within ${FRAGMENT_GAP_MS} ms are one turn, on the line's clock`, async () => {
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    socket.onmessage = (e) => {
      const msg = JSON.parse(e.data as string);
      if (msg.type === "client-ready") {
        socket.send(JSON.stringify(rtvi("bot-ready", { version: "2.1.0" }, msg.id)));
      }
      if (msg.type === "client-message") {
        socket.send(JSON.stringify(rtvi("server-response", { t: msg.data.t, d: true }, msg.id)));
      }
      if (msg.type === "send-text") {
        const text = msg.data.content as string;
        socket.send(JSON.stringify(rtvi("bot-tts-text", { text })));
      }
    };
    return response;
  });
  const clock = new SimClock();
  const line = new RecordingLine("agent", clock);
  const remote = new RemoteParticipant({ url: `ws://127.0.0.1:${server.addr.port}/ws` });
  // Real time passes for the frames to arrive; the simulated clock stands still.
  const arrived = () => new Promise((r) => setTimeout(r, 50));
  try {
    await remote.start(line, setup("agent"));
    const says = () => line.acts.filter((a) => a.act === "say").map((a) => "text" in a && a.text);
    remote.onEvent({ type: "speech", at: 0, text: "One" });
    await arrived();
    await clock.advance(FRAGMENT_GAP_MS - 1);
    remote.onEvent({ type: "speech", at: 0, text: "two." });
    await arrived();
    await clock.advance(FRAGMENT_GAP_MS - 1);
    assert.deepEqual(says(), [], "no turn while fragments keep coming within the gap");
    await clock.advance(1);
    assert.deepEqual(says(), ["One two."]);
    remote.onEvent({ type: "speech", at: 0, text: "Three." });
    await arrived();
    await clock.advance(FRAGMENT_GAP_MS);
    assert.deepEqual(says(), ["One two.", "Three."], "after the gap, a new turn");
  } finally {
    await remote.close();
    for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
    await server.shutdown();
  }
});

Deno.test("fragments are joined with one space, none before closing punctuation", () => {
  assert.equal(
    joinFragments(["Your", "flight", "is", "on", "time", "."]),
    "Your flight is on time.",
  );
  assert.equal(
    joinFragments(["Hello, ", "John", "'s", "booking ", " is done."]),
    "Hello, John's booking is done.",
  );
  assert.equal(joinFragments(["It costs", "(about", "$", "75)", "!"]), "It costs (about $75)!");
});

type Ending =
  | "end_conversation"
  | "server-message end"
  | "server-message <exit>"
  | "speech <exit>"
  | "socket closed";

/** A bot that greets, then ends the call its own way. */
function endingBot(ending: Ending) {
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    const send = (type: string, data?: unknown, id?: string) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(rtvi(type, data, id)));
    };
    socket.onmessage = (e) => {
      const msg = JSON.parse(e.data as string);
      if (msg.type === "client-ready") return send("bot-ready", { version: "2.1.0" }, msg.id);
      if (msg.type !== "send-text") return;
      send("bot-started-speaking");
      send("bot-output", {
        text: ending === "speech <exit>"
          ? "Goodbye. <exit>The task is finished.</exit>"
          : "Goodbye.",
      });
      send("bot-stopped-speaking");
      if (ending === "end_conversation") {
        send("llm-function-call-in-progress", {
          tool_call_id: "c1",
          function_name: "end_conversation",
          arguments: {},
        });
      } else if (ending === "server-message end") send("server-message", { type: "end" });
      else if (ending === "server-message <exit>") {
        send("server-message", { text: "<exit>The task is finished.</exit>" });
      } else if (ending === "socket closed") setTimeout(() => socket.close(), 50);
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    async stop() {
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await server.shutdown();
    },
  };
}

for (
  const [ending, stop] of [
    ["end_conversation", "agent_end"],
    ["server-message end", "agent_end"],
    ["server-message <exit>", "agent_end"],
    ["speech <exit>", "agent_end"],
    ["socket closed", "error"],
  ] as const
) {
  Deno.test(`a remote agent ending the call by ${ending} stops as ${stop}`, async () => {
    const bot = endingBot(ending);
    const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
      today: "2024-05-15",
      seed: "s",
    });
    try {
      const out = await runCall({
        env,
        agent: new RemoteParticipant({ url: bot.url, kick: "Hello", promptReplyWaitMs: 20 }),
        user: new Caller(),
        agentSetup: { ...setup("agent"), tools: toolSpecs(counterDomain, "agent", []) },
        userSetup: setup("user"),
        clock: new RealClock(),
        limits: DEFAULT_LIMITS,
        firstSpeaker: "agent",
        timedSpeech: false,
      });
      assert.equal(out.stopReason, stop);
      assert.equal(out.turns[0]?.text, "Goodbye.");
      if (stop === "error") assert.equal(out.error?.kind, "agent_disconnected");
      else assert.equal(out.cleanExit, true);
    } finally {
      await bot.stop();
    }
  });
}
