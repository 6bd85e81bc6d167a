import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { FakeSocket } from "./_fake_socket.ts";
import { Session } from "./session.ts";
import { sessionKey, SessionStore } from "./session_store.ts";

function session(): Session {
  return new Session(new FakeSocket(), {
    factory: () => new EchoParticipant(),
    participant: { name: "echo", side: "agent" },
  });
}

Deno.test("a session's key: ?session=NAME, else the URL without its token, parameters sorted", () => {
  assert.deepEqual(sessionKey("ws://h:1/ws?session=abc&agent=oracle"), {
    key: "session:abc",
    named: true,
  });
  const a = sessionKey("ws://h:1/ws?token=s3cret&scenario=x&agent=oracle");
  const b = sessionKey("ws://h:1/ws?agent=oracle&scenario=x");
  assert.deepEqual(a, b);
  assert.deepEqual(a, { key: "url:/ws?agent=oracle&scenario=x", named: false });
  assert.notEqual(sessionKey("ws://h:1/ws?agent=noop").key, b.key);
  assert.equal(sessionKey("ws://h:1/ws").key, "url:/ws");
});

Deno.test("a detached session is kept for its idle time, then freed (simulated clock)", async () => {
  const clock = new SimClock();
  const store = new SessionStore({ clock, idleMs: 600_000 });
  const s = session();
  store.attached("k", s);
  assert.equal(store.inUse("k"), true);
  store.detached("k", s);
  assert.equal(store.inUse("k"), false);
  assert.equal(store.kept, 1);
  await clock.advance(599_999);
  assert.equal(store.peek("k"), s);
  assert.equal(s.isClosed, false);
  await clock.advance(1);
  assert.equal(store.kept, 0);
  assert.equal(s.isClosed, true);
});

Deno.test("a session resumed before its idle time is not freed by the old timer", async () => {
  const clock = new SimClock();
  const store = new SessionStore({ clock, idleMs: 1_000 });
  const s = session();
  store.detached("k", s);
  await clock.advance(500);
  assert.equal(store.take("k"), s);
  store.attached("k", s);
  await clock.advance(10_000);
  assert.equal(s.isClosed, false);
  assert.equal(store.take("k"), undefined);
  // Detached again: a fresh idle time.
  store.detached("k", s);
  await clock.advance(999);
  assert.equal(s.isClosed, false);
  await clock.advance(1);
  assert.equal(s.isClosed, true);
});

Deno.test("kept sessions are capped (the longest idle goes) and one per key", async () => {
  const clock = new SimClock();
  const store = new SessionStore({ clock, idleMs: 60_000, maxKept: 2 });
  const [a, b, c, d] = [session(), session(), session(), session()];
  store.detached("a", a);
  store.detached("b", b);
  store.detached("c", c);
  await clock.advance(0);
  assert.equal(store.kept, 2);
  assert.equal(a.isClosed, true);
  assert.equal(store.peek("b"), b);
  // A newer session of the same key replaces (and frees) the kept one.
  store.detached("b", d);
  await clock.advance(0);
  assert.equal(b.isClosed, true);
  assert.equal(store.peek("b"), d);
  await store.freeAll();
  assert.equal(store.kept, 0);
  assert.ok(c.isClosed && d.isClosed);
});

Deno.test("nothing is kept with an idle time of 0, nor a session the client freed", async () => {
  const store = new SessionStore({ clock: new SimClock(), idleMs: 0 });
  const s = session();
  store.detached("k", s);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(store.kept, 0);
  assert.equal(s.isClosed, true);
  const kept = new SessionStore({ clock: new SimClock() });
  const freed = session();
  await freed.close(1000, "disconnect-bot");
  kept.detached("k", freed);
  assert.equal(kept.kept, 0);
});
