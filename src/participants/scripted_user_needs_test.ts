import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { counterEnv, counterSetup } from "../testing/counter_domain.ts";
import { DEFAULT_LIMITS, runCall } from "../bridge/bridge.ts";
import type { CallEvent, CallLine, Participant } from "../bridge/call.ts";
import { SimClock } from "../clock/clock.ts";
import type { CallerNeeds } from "../scenario/caller_needs.ts";
import { limitsOf } from "../scenario/caller_needs.ts";
import { ScriptedUser } from "./scripted_user.ts";
import { checkOption, chooseOption, offeredOptions } from "./caller_offer.ts";

/** An agent that says each line in turn, one per caller reply, and keeps the replies. */
class Lines implements Participant {
  readonly info = { kind: "lines" };
  readonly replies: string[] = [];
  #line?: CallLine;
  #next = 0;
  constructor(readonly lines: string[]) {}
  start(line: CallLine): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent): void {
    if (e.type === "call_start" && e.you_speak_first) this.#say();
    if (e.type !== "speech") return;
    if (this.#next > 1) this.replies.push(e.text);
    this.#say();
  }
  #say(): void {
    const text = this.lines[this.#next++];
    if (text !== undefined) this.#line!.say(text);
    else void this.#line!.callTool("end_conversation", {});
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The caller's replies to `lines` (after its opening, to the first). */
async function replies(needs: CallerNeeds | undefined, lines: string[]): Promise<string[]> {
  const agent = new Lines(["Hello, thanks for calling.", ...lines]);
  await runCall({
    env: counterEnv(),
    agent,
    user: new ScriptedUser({
      opening: "Hi, I need to change my flight.",
      knownInfo: { "confirmation number": "QX7PLM", "last name": "Lindqvist" },
      ...(needs ? { needs } : {}),
    }),
    agentSetup: counterSetup("agent"),
    userSetup: counterSetup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: false,
  });
  return agent.replies;
}

const MUST = [
  "The new flight is on 2031-04-09, from BOS to DEN.",
  "I arrive in DEN no later than 6:30 PM local time.",
  "The total cost to change is $150 or less.",
  "It is a direct flight (no connections).",
];
const NEEDS: CallerNeeds = {
  goal: "I want to move my Boston to Denver flight to April 9, landing by 6:30 PM.",
  must_have: MUST,
  nice_to_have: ["I would like an aisle seat."],
  unknown: ["I do not know my frequent flyer number."],
  limits: limitsOf(MUST),
  preferred: {},
};

Deno.test("limitsOf() reads the times, the cost and the stops a criterion states", () => {
  assertEquals(NEEDS.limits, { arrive_by: "18:30", max_cost: 150, max_stops: 0 });
  assertEquals(
    limitsOf([
      "The flight departs after 12:00 PM (noon) local time.",
      "The total added cost must be under $100.",
      "At most one thing; no more than 1 connection (0 or 1 stop).",
    ]),
    { depart_after: "12:00", max_cost: 100, max_cost_strict: true, max_stops: 1 },
  );
  // "Between" includes its ends.
  assertEquals(limitsOf(["It must depart between 8:00 AM and 3:00 PM."]), {
    depart_after: "07:59",
    depart_before: "15:01",
  });
  assertEquals(limitsOf(["Keep my return flight as it is."]), {});
});

Deno.test("the scripted caller states its goal and must-haves when asked what it needs", async () => {
  const [said] = await replies(NEEDS, ["What do you need from the new flight?"]);
  equal(
    said,
    `${NEEDS.goal} What I need: ${MUST.join(" ")} I would also like: I would like an aisle seat.`,
  );
  // Without needs: the caller of before, "Okay." to what it cannot answer.
  assertEquals(await replies(undefined, ["What do you need from the new flight?"]), ["Okay."]);
});

Deno.test("the scripted caller answers a preference question from the criteria it concerns", async () => {
  const [seat, time] = await replies(NEEDS, [
    "Do you have a seat preference, window or aisle?",
    "Any preference on when you arrive?",
  ]);
  equal(seat, "I would like an aisle seat.");
  equal(time, "I arrive in DEN no later than 6:30 PM local time.");
  assertEquals(
    await replies({ ...NEEDS, must_have: [], nice_to_have: [] }, ["Any preferences?"]),
    ["No particular preference."],
  );
});

Deno.test("the scripted caller refuses an option that breaks a must-have, saying which, and takes one that meets them", async () => {
  const [late, dear, fine, open] = await replies(NEEDS, [
    "Flight SK410 leaves at 2:15 PM and arrives at 7:05 PM, nonstop, for a total of $95. Would you like it?",
    "Flight SK412 is nonstop, leaves at 11:00 AM and arrives at 1:40 PM. The change fee is $75 and the fare difference $90, a total of $165. Shall I book it?",
    "Flight SK418 leaves at 9:05 AM and arrives at 11:50 AM, nonstop, for a total of $140. Would you like me to book it?",
    "Flight SK420 leaves at 8:00 AM and arrives at 10:30 AM, nonstop. Would you like it?",
  ]);
  equal(
    late,
    "No, that doesn't work for me: it arrives at 7:05 PM, and I need to arrive by 6:30 PM. " +
      `${MUST.join(" ")} Could you look for another option?`,
  );
  ok(
    dear!.startsWith(
      "No, that doesn't work for me: the total is $165, and I can pay at most $150.",
    ),
    dear,
  );
  equal(fine, "Yes, that works for me. Please go ahead.");
  // A cost limit and no cost said: the caller asks before agreeing.
  equal(open, "What will the total cost be, all-in?");
});

Deno.test("offered several options, the scripted caller takes the cheapest that meets every must-have", async () => {
  const [pick, none] = await replies(NEEDS, [
    "Option 1: flight SK430, nonstop, leaves at 7:00 AM and arrives at 9:45 AM, for a total of $145. " +
    "Option 2: flight SK432 with 1 stop leaves at 8:00 AM and arrives at 1:00 PM, for a total of $80. " +
    "Option 3: flight SK434, nonstop, leaves at 10:00 AM and arrives at 12:40 PM, for a total of $120. " +
    "Which one would you like?",
    "Option 1: flight SK440, nonstop, leaves at 5:00 PM and arrives at 7:45 PM, for a total of $60. " +
    "Option 2: flight SK442, nonstop, leaves at 9:00 AM and arrives at 11:45 AM, for a total of $210. " +
    "Which would you prefer?",
  ]);
  equal(pick, "I'll take flight SK434. Please go ahead.");
  ok(
    none!.startsWith(
      "None of those work for me: flight SK440: it arrives at 7:45 PM, and I need to arrive by " +
        "6:30 PM. flight SK442: the total is $210, and I can pay at most $150.",
    ),
    none,
  );
});

Deno.test("the scripted caller says what it does not know when asked for it, and the facts it knows", async () => {
  const [unknown, facts] = await replies(NEEDS, [
    "Could you give me your frequent flyer number?",
    "Can I have your confirmation number and last name?",
  ]);
  equal(unknown, "I do not know my frequent flyer number.");
  equal(facts, "confirmation number: QX7PLM. last name: Lindqvist.");
});

Deno.test("offeredOptions() reads each option's times, stops and total; chooseOption() prefers the nice-to-haves", () => {
  const options = offeredOptions(
    "Option 1: flight AB12 leaves at 6:10 AM and lands at 8:00 AM, with 1 stop, $99 in all. " +
      "Option 2: flight AB14, nonstop, departs at 12:30 PM, arriving at 2:05 PM, a total of $130. Which one?",
  );
  assertEquals(options.map((o) => [o.name, o.departs, o.arrives, o.stops, o.cost]), [
    ["AB12", "06:10", "08:00", 1, 99],
    ["AB14", "12:30", "14:05", 0, 130],
  ]);
  const checks = options.map((o) => checkOption(o, { max_cost: 200 }));
  equal(chooseOption(checks)!.option.name, "AB12");
  equal(chooseOption(checks, { max_stops: 0 })!.option.name, "AB14");
  // Not a question: nothing offered.
  assertEquals(offeredOptions("Flight AB12 leaves at 6:10 AM."), []);
});
