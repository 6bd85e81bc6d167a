/**
 * Bad input on the SmallWebRTC wire, each against the libwebrtc bot of
 * `./_webrtc_bot.ts` made to misbehave one way: every one is a clear error kind with
 * a message saying what went wrong, and the participant lets go of its peer.
 */
import assert from "node:assert/strict";
import { type CallSetup, ParticipantError } from "../src/bridge/call.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { recordingLine } from "./fake_call_line.ts";
import { startWebRtcBot, type WebRtcBotOptions } from "./_webrtc_bot.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "toy__7",
  domain: "toy",
  prompt: "You paint houses.",
  tools: [],
  seed: "5eed",
};

const CASES: { name: string; bot: Partial<WebRtcBotOptions>; kind: string; message: RegExp }[] = [
  {
    name: "HTTP 401 to the offer",
    bot: { status: 401 },
    kind: "agent_unauthorized",
    message: /HTTP 401/,
  },
  {
    name: "HTTP 500 to the offer",
    bot: { status: 500 },
    kind: "agent_unreachable",
    message: /HTTP 500/,
  },
  {
    name: "an answer that is not JSON",
    bot: { answerEdit: "not-json" },
    kind: "protocol_error",
    message: /not JSON/,
  },
  {
    name: "an answer without audio",
    bot: { answerEdit: "no-audio" },
    kind: "protocol_error",
    message: /refused the audio \(port 0\)/,
  },
  {
    name: "an answer with no common codec",
    bot: { answerEdit: "pcmu-only" },
    kind: "protocol_error",
    message: /no common codec.*pcmu\/8000/,
  },
  {
    name: "a bot that never answers the offer",
    bot: { silent: true },
    kind: "agent_timeout",
    message: /did not answer the offer within 1500 ms/,
  },
  {
    name: "ICE that never connects",
    bot: { answerEdit: "no-ice" },
    kind: "agent_unreachable",
    message: /ICE did not connect within 2000 ms/,
  },
];

for (const c of CASES) {
  Deno.test({
    name: `SmallWebRTC: ${c.name} is ${c.kind}`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const bot = await startWebRtcBot({ delays: [500], ...c.bot });
      try {
        const remote = new RemoteParticipant({
          url: bot.url,
          side: "agent",
          replyTimeoutMs: 1500,
          connectTimeoutMs: 2000,
          connectAttempts: 1,
        });
        const error = await remote.start(recordingLine("agent"), SETUP).then(
          () => undefined,
          (e) => e,
        );
        await remote.close();
        assert.ok(error instanceof ParticipantError, String(error));
        assert.equal(error.kind, c.kind, error.message);
        assert.match(error.message, c.message);
        assert.match(
          error.message,
          new RegExp(bot.url.replace(/[/.]/g, "\\$&")),
          "names the agent",
        );
      } finally {
        await bot.close();
      }
    },
  });
}
