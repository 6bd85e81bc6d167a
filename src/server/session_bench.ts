/**
 * Hot paths of the bot server, in-process: a handshake through a session, and a
 * protobuf frame written and read back.
 */
import { readFrame, writeFrame } from "../protocol/framing.ts";
import { rtvi } from "../protocol/messages.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { FakeSocket } from "./_fake_socket.ts";
import { Session } from "./session.ts";

const READY = JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "r1"));
const SEND_TEXT = rtvi("send-text", { content: "I would like to change my flight." }, "s1");

Deno.bench("session: client-ready to bot-ready", async () => {
  const socket = new FakeSocket();
  socket.countOnly = true;
  const session = new Session(socket, {
    factory: () => new EchoParticipant(),
    participant: { name: "echo", side: "agent" },
  });
  session.receive(READY);
  await session.idle();
});

Deno.bench("framing: protobuf send-text written and read back", () => {
  readFrame(writeFrame(SEND_TEXT, "protobuf"));
});
