/**
 * The transport seam: the wire mapping is chosen by the framing (option or
 * `eval --framing`, else the URL's `?framing=`, else json), not by the URL's scheme.
 */
import assert from "node:assert/strict";
import type { CallSetup } from "../src/bridge/call.ts";
import { type ClientSocket, RemoteParticipant } from "../src/participants/remote.ts";
import { resolveRemote, WIRE_FRAMINGS } from "../src/transport/mapping.ts";
import { MAPPINGS } from "../src/transport/mappings.ts";
import { cli } from "./_cli.ts";
import { echoServer, type LineAct, RecordingLine } from "./_wire.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "toy__7",
  domain: "toy",
  prompt: "You paint houses.",
  tools: [],
  seed: "5eed",
};

Deno.test("the framing comes from the option, else ?framing=, else json", () => {
  const at = (url: string, framing?: "json" | "protobuf" | "twilio") =>
    resolveRemote({ url, ...(framing ? { framing } : {}) }).framing;
  assert.equal(at("ws://h/ws"), "json");
  assert.equal(at("ws://h/ws?framing=protobuf"), "protobuf");
  assert.equal(at("ws://h/ws?framing=twilio"), "twilio");
  assert.equal(at("ws://h/ws?framing=nonsense"), "json");
  assert.equal(at("ws://h/ws?framing=protobuf", "json"), "json");
  assert.equal(at("ws://h/ws", "twilio"), "twilio");
  // The token is sent, never shown.
  const r = resolveRemote({ url: "ws://h/ws?agent=x", token: "s3cret" });
  assert.match(r.connectUrl, /token=s3cret/);
  assert.doesNotMatch(r.shownUrl, /s3cret/);
  // Every framing has a mapping.
  assert.deepEqual(Object.keys(MAPPINGS).sort(), [...WIRE_FRAMINGS].sort());
});

Deno.test("framing: protobuf as an option sends binary frames to a URL without ?framing=", async () => {
  const server = await echoServer();
  const sent: string[] = [];
  const connect = (url: string): ClientSocket => {
    const ws = new WebSocket(url) as unknown as ClientSocket;
    const send = ws.send.bind(ws);
    ws.send = (data) => {
      sent.push(typeof data === "string" ? "text" : "binary");
      send(data);
    };
    return ws;
  };
  const remote = new RemoteParticipant({
    url: `${server.url}?agent=echo`,
    framing: "protobuf",
    connect,
  });
  const line = new RecordingLine("agent");
  try {
    await remote.start(line, SETUP);
    assert.equal(remote.info.settings?.framing, "protobuf");
    remote.onEvent({ type: "call_start", at: 0, you_speak_first: true });
    await line.when((a: LineAct) => a.act === "say" && a.text === "Hello, echo here.");
    assert.ok(sent.length > 0);
    assert.deepEqual([...new Set(sent)], ["binary"]);
  } finally {
    await remote.close();
    await server.shutdown();
  }
});

Deno.test("eval --framing: an unknown framing, or one without a ws:// agent, is a usage error", async () => {
  const bad = await cli(["eval", "--agent", "ws://127.0.0.1:9/ws", "--framing", "xml", "--all"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--framing/);
  assert.match(bad.stderr, /json, protobuf, twilio/);
  const local = await cli(["eval", "--agent", "oracle", "--framing", "json", "--all"]);
  assert.equal(local.code, 2, local.stderr);
  assert.match(local.stderr, /needs a ws:\/\/ or http:\/\/ agent/);
});

Deno.test("eval --framing protobuf reaches the agent in protobuf and records the framing", async () => {
  const server = await echoServer();
  try {
    const r = await cli([
      "eval",
      "--agent",
      `${server.url}?agent=echo`,
      "--framing",
      "protobuf",
      "--scenarios",
      "eva_airline__1_4_1",
      "--max-turns",
      "4",
    ]);
    const record = JSON.parse(r.stdout.trim().split("\n")[0]!);
    assert.equal(record.participants.agent.settings.framing, "protobuf", r.stderr);
    assert.ok(record.turns.some((t: { text: string }) => t.text === "Hello, echo here."));
  } finally {
    await server.shutdown();
  }
});
