/**
 * The bounds of one connection on the simulated clock: time to `client-ready`, time
 * without a frame, and refused frames (a burst, then a rate); past each the client
 * gets a fatal `error` naming it and the socket is closed.
 */
import assert from "node:assert/strict";
import { pcm16, pcm16ToBytes } from "../audio/pcm.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { FakeSocket } from "./_fake_socket.ts";
import { openSession } from "./_session_harness.ts";

const READY = JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "r"));
/** How the socket was closed (a function, so one assertion does not narrow the next). */
const closedWith = (socket: FakeSocket) => socket.closedWith;
const fatal = (out: RtviMessage[]) =>
  out.filter((m) => m.type === "error" && (m.data as { fatal?: boolean }).fatal)
    .map((m) => (m.data as { error: string }).error);

Deno.test("a connection without client-ready within the handshake timeout is closed (1008)", async () => {
  const s = openSession({ limits: { handshakeTimeoutMs: 10_000 } });
  await s.clock.advance(9_999);
  assert.ok(!closedWith(s.socket));
  await s.clock.advance(1);
  assert.deepEqual(closedWith(s.socket), { code: 1008, reason: "no client-ready within 10 s" });
  assert.deepEqual(fatal(s.socket.take()), ["no client-ready within 10 s"]);
  // Its later frames are dropped unread.
  assert.deepEqual(await s.raw(READY), []);
});

Deno.test("client-ready in time keeps the connection past the handshake timeout", async () => {
  const s = openSession({ limits: { handshakeTimeoutMs: 10_000, idleTimeoutMs: 0 } });
  await s.clock.advance(9_000);
  await s.raw(READY);
  await s.clock.advance(60_000);
  assert.equal(closedWith(s.socket), undefined);
});

Deno.test("a connection with no frame for the idle timeout is closed (1001); each frame restarts it", async () => {
  const s = openSession({ limits: { idleTimeoutMs: 30_000 } });
  await s.raw(READY);
  for (let i = 0; i < 5; i++) {
    await s.clock.advance(20_000);
    await s.raw(READY);
  }
  assert.ok(!closedWith(s.socket), "a frame every 20 s keeps it");
  await s.clock.advance(29_999);
  assert.ok(!closedWith(s.socket));
  await s.clock.advance(1);
  assert.deepEqual(closedWith(s.socket), { code: 1001, reason: "no frame for 30 s" });
});

Deno.test("refused frames: a burst is answered, then a rate; past it the client is cut off", async () => {
  const s = openSession({ limits: { refusalBurst: 10, refusalsPerSecond: 2 } });
  for (let i = 0; i < 10; i++) {
    assert.deepEqual((await s.raw("{")).map((m) => m.type), ["error"], `frame ${i}`);
  }
  // Two more per second come back: after 1 s, two are answered.
  await s.clock.advance(1_000);
  assert.equal((await s.raw("{")).length, 1);
  assert.equal((await s.raw("{")).length, 1);
  assert.ok(!closedWith(s.socket));
  const out = await s.raw("{");
  assert.match(
    fatal(out)[0] ?? "",
    /too many refused frames \(13; at most 10 at once, then 2\/s\)/,
  );
  assert.equal(closedWith(s.socket)?.code, 1008);
  assert.deepEqual(await s.raw("{"), [], "nothing more is answered");
});

Deno.test("a new client of a kept session starts with fresh bounds", async () => {
  const s = openSession({ limits: { refusalBurst: 2, handshakeTimeoutMs: 5_000 } });
  for (let i = 0; i < 3; i++) await s.raw("{");
  assert.equal(closedWith(s.socket)?.code, 1008);
  s.session.detach(s.socket);
  const next = new FakeSocket();
  s.session.attach(next);
  s.session.receive("{");
  await s.session.idle();
  assert.deepEqual(next.take().map((m) => m.type), ["error"]);
  await s.clock.advance(5_000);
  assert.equal(closedWith(next)?.code, 1008, "its own handshake timeout");
});

/** A silent TTS for audio sessions (nothing is said in these tests). */
const SILENT = {
  info: { provider: "silent", sampleRate: 16000 },
  synthesize: () => Promise.resolve({ ok: true as const, audio: pcm16(new Int16Array(0), 16000) }),
  close: () => Promise.resolve(),
};
/** One second of 16 kHz silence as raw-audio. */
const rawAudio = (id: string) =>
  JSON.stringify(rtvi("raw-audio", {
    base64Audio: pcm16ToBytes(new Int16Array(16_000)).toBase64(),
    sampleRate: 16000,
    numChannels: 1,
  }, id));

for (const [speed, cutAfter] of [[4, undefined], [5, 6]] as const) {
  Deno.test(`audio at ${speed}x real time is ${cutAfter ? "cut off past the burst" : "heard for a minute"}`, async () => {
    const s = openSession({ audio: { tts: SILENT }, limits: { audioBurstMs: 5_000 } });
    await s.raw(READY);
    let cutAt: number | undefined;
    for (let i = 0; i < 60 * speed && cutAt === undefined; i++) {
      const out = await s.raw(rawAudio(`a${i}`));
      if (closedWith(s.socket)) {
        cutAt = s.clock.now();
        assert.deepEqual(out.map((m) => [m.type, m.id]), [["error-response", `a${i}`]]);
        assert.equal(
          (out[0]!.data as { error: string }).error,
          `audio faster than 4x real time`,
        );
      }
      await s.clock.advance(1_000 / speed);
    }
    if (cutAfter === undefined) return assert.equal(cutAt, undefined);
    // 5 s of burst, gaining 1 s a second: cut at about 5-6 s of the call.
    assert.ok(
      cutAt !== undefined && cutAt >= 4_000 && cutAt <= cutAfter * 1_000,
      `cut at ${cutAt}`,
    );
    assert.deepEqual(closedWith(s.socket), {
      code: 1008,
      reason: "audio faster than 4x real time",
    });
  });
}

Deno.test("a client sending more bytes than the inbound bound is cut off (1008)", async () => {
  const s = openSession({ limits: { inboundBurstBytes: 10_000, inboundBytesPerSecond: 1_000 } });
  const frame = JSON.stringify(
    rtvi("client-ready", { version: "2.1.0", pad: "p".repeat(900) }, "r"),
  );
  for (let i = 0; i < 10; i++) await s.raw(frame);
  assert.ok(!closedWith(s.socket), "10 kB at once");
  await s.clock.advance(1_000);
  await s.raw(frame);
  assert.ok(!closedWith(s.socket), "then 1 kB a second");
  const out = await s.raw(frame);
  assert.deepEqual(fatal(out), ["more than 0.01 MiB at once, then 0 MiB/s, sent"]);
  assert.equal(closedWith(s.socket)?.code, 1008);
});

Deno.test("replies past the reply byte rate are refused until the rate allows them again", async () => {
  const s = openSession({ limits: { replyBurstBytes: 300, replyBytesPerSecond: 100 } });
  await s.raw(READY);
  const ask = () => s.request("get_context_history", {});
  const first = await ask();
  // Each reply is 117 bytes: 300 at once answer three (the third into debt), not a fourth.
  assert.equal(JSON.stringify(first).length, 117);
  const next = [await ask(), await ask(), await ask()];
  assert.deepEqual(next.map((m) => m.type), [
    "server-response",
    "server-response",
    "error-response",
  ]);
  assert.deepEqual(next[2]!.data, {
    error: "too many reply bytes asked for of late; ask again later",
  });
  // 51 bytes in debt, 100 more a second: still refused after 0.5 s, answered after 1 s.
  await s.clock.advance(500);
  assert.equal((await ask()).type, "error-response");
  await s.clock.advance(500);
  assert.equal((await ask()).type, "server-response");
  assert.equal(closedWith(s.socket), undefined);
});

Deno.test("past 256 messages waiting to be handled, more are refused at once", async () => {
  const s = openSession();
  await s.raw(READY);
  for (let i = 0; i < 300; i++) {
    s.session.receive(
      JSON.stringify(rtvi("client-message", { t: "get_context_history", d: {} }, `q${i}`)),
    );
  }
  await s.session.idle();
  const out = s.socket.take();
  const refused = out.filter((m) => m.type === "error-response");
  assert.deepEqual(refused.map((m) => m.id), Array.from({ length: 44 }, (_, i) => `q${256 + i}`));
  assert.deepEqual(refused[0]!.data, { error: "too many messages waiting (256)" });
  assert.equal(out.filter((m) => m.type === "server-response").length, 256);
});
