import assert from "node:assert/strict";
import type { CallEvent, CallLine } from "../bridge/call.ts";
import { spokenPrefix, textDurationMs } from "../speech/utterance.ts";
import { flowScenario, simulateFlowCall, TimedAgent } from "./_sim_call.ts";
import type { VoicemailBox } from "./trace.ts";
import {
  drawVoicemailBox,
  genericGreeting,
  MENU_PROMPT,
  MENU_WAIT_MS,
  SENT_PROMPT,
} from "./voicemail.ts";

const d = textDurationMs;
const GREETING = "Hi, you have reached Robin. Leave a message.";
const G = d(GREETING);
const scenario = flowScenario(
  { greeting: { say: GREETING, then: "livekit/voicemail" } },
  "greeting",
);

/**
 * Speaks `messages[i]` 500 ms after the greeting (or a re-record beep), and answers
 * each menu with the next of `menuKeys` ("hangup" hangs up, "" stays silent).
 */
function caller(messages: string[], menuKeys: string[] = []): TimedAgent {
  let take = 0;
  let menu = 0;
  const speak = (line: CallLine) =>
    line.clock.timer(500, () => {
      const m = messages[take++];
      if (m) line.say(m);
    });
  return new TimedAgent([], (e: CallEvent, line) => {
    if (e.type === "speech" && e.text === GREETING) speak(line);
    if (e.type === "speech" && e.text === MENU_PROMPT) {
      const k = menuKeys[menu++];
      if (k === "hangup") line.hangUp();
      else if (k) {
        line.press(k);
        if (k === "2") speak(line);
      }
    }
  });
}

const MSG = "This is Alex from the clinic, please call me back.";

Deno.test("voicemail: every draw of beep, menu and silence wait (bounds 2 and 5) records and sends", async () => {
  for (const beep of [true, false]) {
    for (const menu of [true, false]) {
      for (const silence_wait_s of [2, 5]) {
        const box: VoicemailBox = { beep, menu, silence_wait_s };
        const { trace, agentSaw } = await simulateFlowCall(scenario, caller([MSG], ["1"]), {
          voicemailBox: box,
        });
        const label = JSON.stringify(box);
        const takeEnd = G + 500 + d(MSG) + silence_wait_s * 1000;
        assert.deepEqual(trace.voicemail, {
          ...box,
          takes: [{ transcript: MSG, start_ms: G, end_ms: takeEnd }],
          outcome: "sent",
        }, label);
        const beeps = agentSaw.filter((e) => e.type === "beep");
        assert.deepEqual(beeps.map((b) => b.at), beep ? [G] : [], label);
        const heard = agentSaw.flatMap((e) => e.type === "speech" ? [e.text] : []);
        assert.deepEqual(heard, menu ? [GREETING, MENU_PROMPT, SENT_PROMPT] : [GREETING], label);
        const endAt = menu ? takeEnd + d(MENU_PROMPT) + d(SENT_PROMPT) : takeEnd;
        assert.deepEqual(trace.end, {
          node: "livekit/voicemail",
          reason: "voicemail_done",
          at_ms: endAt,
        }, label);
        assert.deepEqual(trace.nodes.map((n) => n.name), ["greeting"], label);
      }
    }
  }
});

Deno.test("voicemail: a box that is the start plays a generic greeting", async () => {
  const box: VoicemailBox = { beep: false, menu: false, silence_wait_s: 3 };
  const greeting = genericGreeting(box);
  const agent = new TimedAgent([[d(greeting) + 1000, (l) => l.say(MSG)]]);
  const { trace, agentSaw } = await simulateFlowCall(flowScenario({}, "livekit/voicemail"), agent, {
    voicemailBox: box,
  });
  assert.ok(
    agentSaw.some((e) => e.type === "speech" && e.text === greeting && e.voice === "MACHINE"),
  );
  assert.equal(trace.voicemail?.takes[0]?.start_ms, d(greeting));
  assert.equal(trace.voicemail?.outcome, "sent");
});

Deno.test("voicemail: re-record, then send", async () => {
  const box: VoicemailBox = { beep: true, menu: true, silence_wait_s: 2 };
  const second = "Sorry, this is Alex again, please call the clinic.";
  const { trace, agentSaw } = await simulateFlowCall(scenario, caller([MSG, second], ["2", "1"]), {
    voicemailBox: box,
  });
  const t1End = G + 500 + d(MSG) + 2000;
  const t2Start = t1End + d(MENU_PROMPT);
  assert.deepEqual(trace.voicemail?.takes, [
    { transcript: MSG, start_ms: G, end_ms: t1End },
    { transcript: second, start_ms: t2Start, end_ms: t2Start + 500 + d(second) + 2000 },
  ]);
  assert.equal(trace.voicemail?.outcome, "sent");
  assert.equal(agentSaw.filter((e) => e.type === "beep").length, 2, "the box beeps again");
  assert.equal(trace.keys.map((k) => k.keys).join(""), "21");
});

Deno.test("voicemail: hanging up during the menu keeps the message", async () => {
  const box: VoicemailBox = { beep: true, menu: true, silence_wait_s: 4 };
  const { trace } = await simulateFlowCall(scenario, caller([MSG], ["hangup"]), {
    voicemailBox: box,
  });
  assert.equal(trace.voicemail?.outcome, "kept");
  assert.equal(trace.end.reason, "agent_hangup");
  assert.equal(trace.end.node, "livekit/voicemail");
});

Deno.test("voicemail: the menu plays three times at most, then the box keeps the message", async () => {
  const box: VoicemailBox = { beep: false, menu: true, silence_wait_s: 2 };
  const { trace, agentSaw } = await simulateFlowCall(scenario, caller([MSG]), {
    voicemailBox: box,
  });
  assert.equal(agentSaw.filter((e) => e.type === "speech" && e.text === MENU_PROMPT).length, 3);
  const takeEnd = G + 500 + d(MSG) + 2000;
  assert.deepEqual(trace.end, {
    node: "livekit/voicemail",
    reason: "visit_limit",
    at_ms: takeEnd + 3 * (d(MENU_PROMPT) + MENU_WAIT_MS),
  });
  assert.equal(trace.voicemail?.outcome, "kept");
});

Deno.test("voicemail: an invalid menu key plays the menu again", async () => {
  const box: VoicemailBox = { beep: false, menu: true, silence_wait_s: 2 };
  const { trace } = await simulateFlowCall(scenario, caller([MSG], ["9", "1"]), {
    voicemailBox: box,
  });
  assert.equal(trace.voicemail?.outcome, "sent");
  assert.equal(trace.keys.map((k) => k.keys).join(""), "91");
});

Deno.test("voicemail: 10 s without speech hangs up with no message", async () => {
  const box: VoicemailBox = { beep: true, menu: true, silence_wait_s: 5 };
  const { trace } = await simulateFlowCall(scenario, new TimedAgent(), { voicemailBox: box });
  assert.deepEqual(trace.voicemail, {
    ...box,
    takes: [{ transcript: "", start_ms: G, end_ms: G + 10000 }],
    outcome: "no_message",
  });
  assert.deepEqual(trace.end, {
    node: "livekit/voicemail",
    reason: "voicemail_done",
    at_ms: G + 10000,
  });
});

Deno.test("voicemail: # ends the recording at once", async () => {
  const box: VoicemailBox = { beep: true, menu: false, silence_wait_s: 5 };
  const at = G + 500 + d(MSG) + 300;
  const agent = new TimedAgent([[G + 500, (l) => l.say(MSG)], [at, (l) => l.press("#")]]);
  const { trace } = await simulateFlowCall(scenario, agent, { voicemailBox: box });
  assert.deepEqual(trace.voicemail?.takes, [{ transcript: MSG, start_ms: G, end_ms: at }]);
  assert.equal(trace.voicemail?.outcome, "sent");
});

Deno.test("voicemail: a recording ends after 60 s however long the agent talks", async () => {
  const box: VoicemailBox = { beep: true, menu: true, silence_wait_s: 5 };
  const chunk = "I am calling about the order and I have a lot to say about it.";
  const plan: [number, (l: CallLine) => void][] = [];
  for (let t = G + 200; t < G + 80000; t += d(chunk) + 1000) plan.push([t, (l) => l.say(chunk)]);
  plan.push([G + 90000, (l) => l.hangUp()]);
  const { trace } = await simulateFlowCall(scenario, new TimedAgent(plan), { voicemailBox: box });
  const take = trace.voicemail!.takes[0]!;
  assert.equal(take.end_ms, G + 60000);
  assert.ok(take.transcript.startsWith(chunk));
  // The utterance cut by the limit contributes only the words said before it.
  const words = take.transcript.split(" ").length;
  const perChunk = chunk.split(" ").length;
  const spokenMs = 60000 - 200;
  assert.ok(words < perChunk * Math.ceil(spokenMs / (d(chunk) + 1000)), `${words} words`);
  assert.ok(words > perChunk * Math.floor(spokenMs / (d(chunk) + 1000)), `${words} words`);
});

Deno.test("drawVoicemailBox is a pure function of the seed and draws every kind of box", () => {
  assert.deepEqual(drawVoicemailBox("abc"), drawVoicemailBox("abc"));
  const seen = new Set<string>();
  for (let i = 0; i < 400; i++) {
    const box = drawVoicemailBox(i.toString(16));
    assert.ok(box.silence_wait_s >= 2 && box.silence_wait_s <= 5);
    seen.add(JSON.stringify(box));
  }
  assert.equal(seen.size, 16);
});

/** About 300 words: it takes far longer than the 60 s a box records. */
const LONG = Array.from({ length: 30 }, (_, i) => `Part ${i + 1} of a very long message here.`)
  .join(" ");
/** Longer than the 10 s a box waits for speech, well under its 60 s. */
const MEDIUM = "This is Alex from the clinic about your visit next week on Tuesday. " +
  "We need to move it to the afternoon because the doctor is away that morning. " +
  "Please call us back at your convenience to confirm the new time, thank you.";

/** Says `text` the moment the far end finishes an utterance (as `after: speech` does). */
function speaksOnGreeting(text: string): TimedAgent {
  let said = false;
  return new TimedAgent([], (e, line) => {
    if (e.type === "speech" && !said) {
      said = true;
      line.say(text);
    }
  });
}

Deno.test("voicemail: an agent that starts speaking as a node's greeting ends is recorded", async () => {
  const box: VoicemailBox = { beep: false, menu: false, silence_wait_s: 2 };
  assert.ok(d(MEDIUM) > 10000 && d(MEDIUM) < 60000);
  const agent = speaksOnGreeting(MEDIUM);
  const { trace } = await simulateFlowCall(scenario, agent, { voicemailBox: box });
  assert.deepEqual(trace.voicemail, {
    ...box,
    takes: [{ transcript: MEDIUM, start_ms: G, end_ms: G + d(MEDIUM) + 2000 }],
    outcome: "sent",
  });
});

Deno.test("voicemail: words the agent began during the greeting count from the recording's start", async () => {
  const box: VoicemailBox = { beep: false, menu: false, silence_wait_s: 3 };
  // Starts 1 s before the greeting ends and talks on past it.
  const agent = new TimedAgent([[G - 1000, (l) => l.say(MEDIUM)]]);
  const { trace } = await simulateFlowCall(scenario, agent, { voicemailBox: box });
  const take = trace.voicemail!.takes[0]!;
  assert.equal(take.start_ms, G);
  assert.equal(take.end_ms, G - 1000 + d(MEDIUM) + 3000);
  const before = spokenPrefix(MEDIUM, 1000);
  assert.equal(take.transcript, MEDIUM.slice(before.length).trim());
  assert.equal(trace.voicemail?.outcome, "sent");
});

Deno.test("voicemail: an agent still talking at 60 s leaves the words of the first 60 s", async () => {
  for (const greeted of [true, false]) {
    const box: VoicemailBox = { beep: false, menu: false, silence_wait_s: 2 };
    const s = greeted ? scenario : flowScenario({}, "livekit/voicemail");
    const { trace } = await simulateFlowCall(s, speaksOnGreeting(LONG), { voicemailBox: box });
    const label = greeted ? "greeted by a node" : "generic greeting";
    const take = trace.voicemail!.takes[0]!;
    assert.equal(take.end_ms - take.start_ms, 60000, label);
    const said = spokenPrefix(LONG, 60000);
    assert.equal(take.transcript, said, label);
    assert.ok(said.length > 100 && said.length < LONG.length, label);
    assert.equal(trace.voicemail!.outcome, "sent", label);
    assert.equal(trace.end.reason, "voicemail_done", label);
  }
});

Deno.test("voicemail: a take with no words is no message, whatever the box did next", async () => {
  // `#` 100 ms into the agent's first utterance ends a take that holds no word.
  for (const menu of [false, true]) {
    const box: VoicemailBox = { beep: true, menu, silence_wait_s: 2 };
    const agent = new TimedAgent([
      [G + 100, (l) => l.say(MSG)],
      [G + 200, (l) => l.press("#")],
      [G + 200 + d(MENU_PROMPT) + 500, (l) => l.press("1")],
    ]);
    const { trace } = await simulateFlowCall(scenario, agent, { voicemailBox: box });
    const label = menu ? "menu, then 1" : "no menu";
    assert.deepEqual(trace.voicemail?.takes, [
      { transcript: "", start_ms: G, end_ms: G + 200 },
    ], label);
    assert.equal(trace.voicemail?.outcome, "no_message", label);
    assert.equal(trace.end.reason, "voicemail_done", label);
  }
});
