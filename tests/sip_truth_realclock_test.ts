/**
 * SIP figures against the SIP agent's own log (`./_sip_agent.ts`), on the real clock: an
 * agent that sends RTP all the time (silence between its turns, as phones do) has its
 * turns start at its speech, and the agent's keys, in-band tones and RFC 4733 events, are
 * timed when they arrived. Run alone (`deno task test:realtime`).
 */
import assert from "node:assert/strict";
import { RealClock } from "../src/clock/clock.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { errors, truthCall } from "./_truth_call.ts";
import { startSipAgent } from "./_sip_agent.ts";

let tts: FliteTts | undefined;
const flite = () => (tts ??= new FliteTts({ voice: "slt" }));

Deno.test("SIP against an agent that sends RTP all the time (silence between its turns): each turn starts at its speech, not at the stream's first packet; v2v, the reference's two and TTFA agree with the agent's log", async () => {
  const agent = await startSipAgent({ delays: [300, 800], greetMs: 600, continuous: true });
  try {
    const participant = new SipParticipant({ uri: agent.uri });
    const { block, out, origin } = await truthCall(
      participant,
      new RealClock(),
      flite(),
      ["Okay.", "Yes, and then add two more."],
    );
    const session = agent.sessions[0]!;
    const e = errors(block, session.replies);
    console.log(
      `sip continuous: ${
        JSON.stringify(e.map((x) => ({ d: x.delay, v2v: x.v2v, ref: x.refFrame })))
      }`,
    );
    assert.equal(e.length, 2, JSON.stringify(block.turns));
    for (const x of e) {
      assert.ok(Math.abs(x.v2v) <= 20, `v2v error ${x.v2v} ms`);
      assert.ok(Math.abs(x.refFrame) <= 20, `ref_frame error ${x.refFrame} ms`);
      assert.ok(Math.abs(x.refSegment) <= 20, `ref_segment error ${x.refSegment} ms`);
    }
    // The caller waited for each reply: nobody barged in.
    assert.deepEqual(block.barge_ins, []);
    // The greeting (this file's first call, so the run's first stretch of a stream): placed
    // where its speech went out, and TTFA with it.
    const greeting = out.audio!.find((a) => a.side === "agent")!;
    const greetErr = greeting.start_ms + origin - session.replies[0]!.firstFrameAt;
    console.log(`sip continuous greeting placed ${greetErr.toFixed(2)} ms off`);
    assert.ok(Math.abs(greetErr) <= 20, `greeting placed ${greetErr} ms off`);
  } finally {
    await agent.close();
  }
});

Deno.test("SIP: the agent's keys are timed when they arrived, in-band tones (not when playback and the detector found them, 40 ms and a block or two later) and RFC 4733 events alike", async () => {
  for (const inbandKeys of [true, false]) {
    const agent = await startSipAgent({
      delays: [300],
      greetMs: 400,
      keys: { 1: "159" },
      inbandKeys,
      continuous: true,
    });
    try {
      const participant = new SipParticipant({ uri: agent.uri });
      const { out, origin } = await truthCall(
        participant,
        new RealClock(),
        flite(),
        ["Please add five to the counter.", "Thank you."],
        { dtmf: inbandKeys ? "inband" : "event" },
      );
      const sent = agent.sessions[0]!.keysSent;
      const heard = out.dtmf.filter((d) => d.side === "agent");
      const how = inbandKeys ? "in-band" : "RFC 4733";
      const errs = heard.map((d, i) => d.at_ms + origin - sent[i]!.at);
      console.log(`sip ${how} key timing error: ${errs.map((e) => e.toFixed(1)).join(", ")} ms`);
      assert.deepEqual(heard.map((d) => d.keys), ["1", "5", "9"], how);
      assert.equal(sent.length, 3);
      // Its packets take 1-5 ms to our RTP Worker. A tone is timed at its detector's first
      // confirming block (25.6 ms, a hop of 12.8 ms), which can begin up to a hop after the
      // tone or, mostly tone already, before it; and the agent's timers share this loaded
      // thread: one late by 30-40 ms sends a burst, and its log moves with it. So: the median
      // within 10 ms, each within 40 ms (timed at detection, each read +80 to +100 ms).
      const sorted = errs.toSorted((a, b) => a - b);
      assert.ok(Math.abs(sorted[1]!) <= 10, `${how} keys timed ${errs} ms off`);
      for (const e of errs) assert.ok(Math.abs(e) <= 40, `${how} key timed ${e} ms off`);
    } finally {
      await agent.close();
    }
  }
});

Deno.test("sip truth: close the shared flite", async () => {
  await tts?.close();
});
