/**
 * Test helper: one `Session` on a `FakeSocket` and a `SimClock`, hosting echo
 * participants over the toy domain unless told otherwise, with `send` / `request`
 * that wait for the session to go idle and return what it sent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import type { Side } from "../domains/domain.ts";
import { type Framing, writeFrame } from "../protocol/framing.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { FakeSocket, toyDomains } from "./_fake_socket.ts";
import { Session, type SessionOptions } from "./session.ts";

export interface SessionHarness {
  session: Session;
  socket: FakeSocket;
  clock: SimClock;
  /** The echo participants the default factory made, in order. */
  hosted: EchoParticipant[];
  /** The participant names the default factory was asked for. */
  names: string[];
  /** Receives `data`, waits for the session to go idle; what it sent since the last call. */
  raw(data: string | Uint8Array): Promise<RtviMessage[]>;
  send(msg: RtviMessage, framing?: Framing): Promise<RtviMessage[]>;
  /** A client-message; its reply (asserted to come). */
  request(t: string, d?: unknown): Promise<RtviMessage>;
}

/** A session hosting `echo` on `side` (default agent); `options` override any default. */
export function openSession(
  options: Partial<SessionOptions> & { side?: Side } = {},
): SessionHarness {
  const socket = new FakeSocket();
  const clock = new SimClock();
  const hosted: EchoParticipant[] = [];
  const names: string[] = [];
  const session = new Session(socket, {
    factory: (name) => {
      names.push(name);
      const p = new EchoParticipant();
      hosted.push(p);
      return p;
    },
    participant: { name: "echo", side: options.side ?? "agent" },
    domains: toyDomains,
    clock,
    ...options,
  });
  let n = 0;
  const raw = async (data: string | Uint8Array) => {
    session.receive(data);
    await session.idle();
    await clock.advance(0);
    return socket.take();
  };
  const h: SessionHarness = {
    session,
    socket,
    clock,
    hosted,
    names,
    raw,
    send: (msg, framing = "json") => raw(writeFrame(msg, framing)),
    request: async (t, d) => {
      const id = `req_${++n}`;
      const replies = await h.send(rtvi("client-message", { t, d }, id));
      const reply = replies.find((m) => m.id === id);
      assert.ok(reply, `no reply to ${t}: ${JSON.stringify(replies)}`);
      return reply;
    },
  };
  return h;
}
