/**
 * `eval --audio --agent sip:agent@127.0.0.1:P` end to end (the CLI with its task's
 * permissions, the real clock, loopback UDP): a flow scenario (an IVR menu that routes
 * on keys) against the SIP agent of `./_sip_agent.ts`, which answers each prompt a
 * known D after its end and presses its keys as RFC 4733 events; and a run whose first
 * call meets bad SIP goes on to complete its next trial.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { startSipAgent } from "./_sip_agent.ts";

const REFILL = "flow__riverside-animal-clinic__refill-by-pet-id";
const D = 1500;

function records(stdout: string) {
  return stdout.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l));
}

Deno.test("eval --audio --agent sip: completes a flow scenario: keys heard, both sides recorded, v2v within 20 ms of the agent's D", async () => {
  const agent = await startSipAgent({
    delays: [D],
    endSilenceMs: 800,
    speechMs: 500,
    keys: { 1: "2", 2: "004217#" },
  });
  const out = await Deno.makeTempDir({ prefix: "callbench-sip-" });
  try {
    const r = await cli([
      "eval",
      "--audio",
      "--agent",
      agent.uri,
      "--scenarios",
      REFILL,
      "scenarios/flows/animal_clinic.yaml",
      "--out",
      out,
    ]);
    const [record] = records(r.stdout);
    assert.ok(record, r.stderr);
    assert.equal(
      record.status,
      "completed",
      JSON.stringify(record.error ?? record.stop_reason) + r.stderr,
    );
    const flow = record.flow as {
      nodes: { name: string }[];
      keys: { keys: string }[];
      end: { node: string };
    };
    assert.deepEqual(flow.nodes.map((n) => n.name), ["main", "refill", "refill_done"]);
    assert.equal(
      flow.keys.map((k) => k.keys).join(""),
      "2004217#",
      "the agent's RFC 4733 keys, heard",
    );
    assert.equal(flow.end.node, "livekit/hangup");
    // Both sides recorded: the agent's replies and the callee's prompts, and the stereo WAV.
    assert.ok(record.audio.sides.agent.sent_s >= 1, JSON.stringify(record.audio.sides));
    assert.ok(record.audio.sides.user.sent_s >= 10, JSON.stringify(record.audio.sides));
    const wav = await Deno.stat(`${out}/${record.audio.wav}`);
    assert.ok(wav.size > 44 + 2 * 2 * 16000 * 10, `a ${wav.size}-byte stereo WAV`);
    assert.equal(
      record.participants?.agent?.settings?.codec ?? record.agent?.settings?.codec,
      "PCMU",
      JSON.stringify(record.participants ?? record.agent),
    );
    const session = agent.sessions[0]!;
    assert.ok(session.packetsIn > 100, "the caller's audio reached the agent");
    assert.ok(session.byeReceived, "the flow's hangup is our BYE");
    // v2v per agent turn against the agent's own D (from the caller's end as it heard it).
    const turns = (record.audio?.turns ?? []) as { v2v_ms: number | null }[];
    const v2v = turns.map((t) => t.v2v_ms).filter((v): v is number => v !== null);
    assert.ok(v2v.length >= 2, JSON.stringify(record.audio?.turns));
    const err = v2v.map((v) => v - D).sort((a, b) => a - b);
    console.log(`sip eval v2v - D: ${JSON.stringify(err.map((e) => Math.round(e)))}`);
    const p50 = err[Math.floor(err.length / 2)]!;
    assert.ok(Math.abs(p50) <= 20, `v2v error p50 ${p50} (${err})`);
    assert.ok(err.every((e) => Math.abs(e) <= 40), `v2v errors ${err}`);
  } finally {
    await agent.close();
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("eval --audio --dtmf inband --agent sip: the agent's keys as tones in its audio route the flow", async () => {
  const agent = await startSipAgent({
    delays: [1200],
    endSilenceMs: 800,
    speechMs: 400,
    keys: { 1: "2", 2: "004217#" },
    inbandKeys: true,
  });
  try {
    const r = await cli([
      "eval",
      "--audio",
      "--dtmf",
      "inband",
      "--agent",
      agent.uri,
      "--scenarios",
      REFILL,
      "scenarios/flows/animal_clinic.yaml",
    ]);
    const [record] = records(r.stdout);
    assert.ok(record, r.stderr);
    assert.equal(record.status, "completed", JSON.stringify(record.error) + r.stderr);
    const flow = record.flow as { nodes: { name: string }[]; keys: { keys: string }[] };
    assert.deepEqual(flow.nodes.map((n) => n.name), ["main", "refill", "refill_done"]);
    assert.equal(
      flow.keys.map((k) => k.keys).join(""),
      "2004217#",
      "decoded from the agent's audio",
    );
    assert.deepEqual(agent.sessions[0]!.keysHeard, [], "no telephone-event was needed");
  } finally {
    await agent.close();
  }
});

Deno.test("eval --agent sip: a first call that meets garbage SIP is protocol_error, the next trial completes", async () => {
  const agent = await startSipAgent({
    delays: [1200],
    endSilenceMs: 800,
    speechMs: 400,
    keys: { 1: "2", 2: "004217#" },
    misbehave: "garbage",
    misbehaveOnce: true,
  });
  try {
    const r = await cli([
      "eval",
      "--audio",
      "--agent",
      agent.uri,
      "--scenarios",
      REFILL,
      "scenarios/flows/animal_clinic.yaml",
      "--trials",
      "2",
      "--concurrency",
      "1",
    ]);
    const rs = records(r.stdout);
    assert.equal(rs.length, 2, r.stderr);
    const statuses = rs.map((x) => x.status).sort();
    assert.deepEqual(statuses, ["completed", "error"], r.stderr);
    const bad = rs.find((x) => x.status === "error")!;
    assert.equal(bad.error.kind, "protocol_error");
    assert.match(bad.error.message, /SIP message callbench cannot read/);
  } finally {
    await agent.close();
  }
});

Deno.test("eval --agent sip: needs --audio and a UDP SIP URI (input errors, exit 2)", async () => {
  for (
    const [args, pattern] of [
      [["--agent", "sip:agent@127.0.0.1:5999"], /SIP agent carries audio only/],
      [["--audio", "--agent", "sip:agent@127.0.0.1:5999;transport=tcp"], /UDP only/],
      [["--audio", "--agent", "sip:"], /not a SIP URI/],
    ] as const
  ) {
    const r = await cli([
      "eval",
      ...args,
      "--scenarios",
      REFILL,
      "scenarios/flows/animal_clinic.yaml",
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, pattern);
  }
});
