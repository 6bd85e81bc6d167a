/**
 * `--framing openai-realtime` on the real clock over loopback, against a realtime
 * server of our own (tests/_fake_realtime.ts): the session handshake and its refusal,
 * the key in the header, caller audio in, the model's audio played out at its own rate
 * and recorded, tools run in the trial's world (an unknown one answered `unknown_tool`),
 * `end_conversation` after the goodbye has played, usage, a server that sends no
 * audio, one 10× faster than real time, one that closes mid-response, one that sends
 * an event of no known type.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { BARGE_IN_TEXT, ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { toolSpecs } from "../src/bridge/tool_specs.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { transcriptName } from "../src/runner/runner.ts";
import { measureAudio } from "../src/runner/audio_metrics.ts";
import { cli } from "./_cli.ts";
import { FAKE_USAGE, fakeRealtime } from "./_fake_realtime.ts";
import { call, fakeTts, KEY, setup } from "./_realtime_call.ts";

Deno.test("openai-realtime: a call with a realtime model: session, caller audio, its audio and words, tools in our world, end_conversation, usage", async () => {
  const { out, server, env, info } = await call({
    noise: true,
    script: [
      { tools: [{ name: "add", arguments: { n: 5 } }], say: "Done, the counter is five." },
      {
        say: "Goodbye, have a nice day.",
        after: [{ name: "end_conversation", arguments: {} }],
      },
    ],
  });
  assert.equal(out.error, undefined, out.error?.message);
  assert.equal(out.stopReason, "agent_end");
  // The key went in the header, and nowhere the record shows.
  assert.equal(server.log.authorization, `Bearer ${KEY}`);
  assert.ok(!JSON.stringify(info).includes(KEY));
  assert.ok(!JSON.stringify(out).includes(KEY));
  assert.equal(info.settings?.framing, "openai-realtime");
  assert.equal(info.model, "fake-realtime");
  // session.update: prompt, tools with their JSON Schemas, formats, turn detection.
  const update = server.log.sessionUpdates[0] as Record<string, unknown> & {
    tools: { name: string; parameters: unknown }[];
    audio: { input: { format: unknown; turn_detection: unknown } };
  };
  assert.equal(update.instructions, "You keep a counter.");
  assert.deepEqual(
    update.tools.map((t) => t.name).sort(),
    toolSpecs(counterDomain, "agent", []).map((t) => t.name).sort(),
  );
  assert.deepEqual(
    update.tools.find((t) => t.name === "add")!.parameters,
    toolSpecs(counterDomain, "agent", []).find((t) => t.name === "add")!.parameters,
  );
  assert.deepEqual(update.audio.input.format, { type: "audio/pcm", rate: 24000 });
  assert.deepEqual(update.audio.input.turn_detection, { type: "server_vad" });
  // The tool ran in the trial's world and its output went back.
  assert.deepEqual(env.db, { count: 5 });
  assert.deepEqual(out.toolCalls.map((t) => t.name), ["add", "end_conversation"]);
  assert.equal(
    server.log.functionOutputs.length,
    2,
    server.log.clientTypes.filter((t) => t !== "input_audio_buffer.append").join(","),
  );
  assert.deepEqual(JSON.parse(server.log.functionOutputs[0]!.output), { count: 5 });
  // Caller audio streamed continuously; the model heard both caller turns.
  assert.ok(server.log.clientTypes.filter((t) => t === "input_audio_buffer.append").length > 100);
  assert.equal(server.log.callerTurns, 2);
  // Its words are its transcript; its audio is the turn's.
  const agentTurns = out.turns.filter((t) => t.speaker === "agent").map((t) => t.text);
  assert.deepEqual(agentTurns, ["Done, the counter is five.", "Goodbye, have a nice day."]);
  const agentAudio = out.audio!.filter((a) => a.side === "agent");
  assert.equal(agentAudio.length, 2);
  assert.ok(agentAudio.every((a) => a.utterance.durationMs >= 1000), "lead silence + speech");
  // Usage: two function-only responses... one per response.
  assert.equal(out.usage.agent.calls, server.log.responses);
  assert.equal(out.usage.agent.prompt_tokens, FAKE_USAGE.input_tokens * server.log.responses);
  const session = out.traces.agent.find((t) => t.type === "realtime_session")!;
  assert.equal(
    (session.usage as { output_audio_tokens: number }).output_audio_tokens,
    15 * server.log.responses,
  );
  // A non-fatal error event and a rate-limit event are counted, and the call goes on.
  const counted = info.settings?.session as { errors: number; rate_limit_events: number };
  assert.deepEqual([counted.errors, counted.rate_limit_events], [1, 1]);
  // The goodbye played to its end before the call ended.
  const goodbye = agentAudio[1]!;
  assert.ok(out.durationMs >= goodbye.end_ms - 5, `${out.durationMs} vs ${goodbye.end_ms}`);
});

Deno.test("openai-realtime: the caller cuts in where the scenario says, while the model speaks: the server hears it, the response is cut and truncated, the yield is what the server produced within 20 ms", async () => {
  const { out, server } = await call(
    {
      script: [
        {
          tools: [{ name: "add", arguments: { n: 5 } }],
          say: "Done. Let me read you the whole policy on counters, from the start.",
          ms: 4000,
        },
        { say: "Goodbye.", after: [{ name: "end_conversation", arguments: {} }] },
      ],
    },
    // The scenario's barge-in (`user.barge_in`): 700 ms into the model's first reply.
    { bargeIns: [{ agentUtterance: 1, atMs: 700 }], maxDurationMs: 20_000 },
  );
  assert.equal(out.error, undefined, out.error?.message);
  assert.equal(out.stopReason, "agent_end");
  // The caller heard the model start as it played, so it could cut in mid-response.
  const cut = out.turns.find((t) => t.speaker === "agent");
  assert.ok(cut, JSON.stringify(out.turns));
  assert.ok(cut.end_ms - cut.start_ms < 1500, `the 4 s reply was cut: ${JSON.stringify(cut)}`);
  // The caller asked to hear it again, so it waits for the model instead of answering the
  // words it cut off.
  const speakers = out.turns.map((t) => `${t.speaker}: ${t.text}`);
  const asked = out.turns.findIndex((t) => t.text === BARGE_IN_TEXT);
  assert.ok(asked > 0, speakers.join(" | "));
  assert.equal(out.turns[asked + 1]?.speaker, "agent", speakers.join(" | "));
  assert.equal(server.log.producedYieldMs.length, 1, "the server heard one cut-in");
  assert.equal(server.log.truncates.length, 1, "and was told how much was heard");
  const block = await measureAudio(out, {
    tts: { provider: "fake", voices: { agent: null, user: null } },
    stt: "transcript",
    dtmf: "event",
    sample_rate: 24000,
  });
  assert.equal(block.barge_ins.length, 1, JSON.stringify(block.barge_ins));
  const b = block.barge_ins[0]!;
  assert.equal(b.source, "agent_audio");
  assert.equal(b.yielded, true);
  const produced = server.log.producedYieldMs[0]!;
  assert.ok(
    Math.abs(b.yield_ms - produced) <= 20,
    `yield recorded ${b.yield_ms} ms, produced ${produced.toFixed(1)} ms`,
  );
  console.log(`yield recorded ${b.yield_ms} ms, produced ${produced.toFixed(1)} ms`);
});

Deno.test("openai-realtime: a refused session.update is a protocol_error with the server's words", async () => {
  const { out } = await call({ refuse: "Unsupported voice 'nobody'", script: [] });
  assert.equal(out.error?.kind, "protocol_error");
  assert.match(out.error!.message, /refused the session: Unsupported voice 'nobody'/);
});

Deno.test("openai-realtime: a wrong key is agent_unauthorized, not retried", async () => {
  const server = fakeRealtime({ key: "other", script: [] });
  try {
    const remote = new RemoteParticipant({
      url: server.url,
      framing: "openai-realtime",
      apiKey: KEY,
    });
    const { RecordingLine } = await import("./_wire.ts");
    const line = Object.assign(new RecordingLine("agent"), { audio: { sampleRate: 16000 } });
    await assert.rejects(() => remote.start(line, setup()), /HTTP 401/);
    await remote.close();
  } finally {
    await server.stop();
  }
});

Deno.test("openai-realtime: a model that never sends audio is silent: its words are traced, nothing is heard", async () => {
  const { out } = await call({
    silent: true,
    script: [{ say: "You cannot hear me." }],
  }, { maxDurationMs: 8000 });
  assert.equal(out.turns.filter((t) => t.speaker === "agent").length, 0);
  const noAudio = out.traces.agent.filter((t) => t.type === "realtime_response_without_audio");
  assert.equal(noAudio.length, 1);
  assert.equal(noAudio[0]!.text, "You cannot hear me.");
  assert.equal(out.error?.kind, "agent_silent");
});

Deno.test("openai-realtime: audio sent 10× faster than real time is played out in real time", async () => {
  const { out } = await call({
    speed: 10,
    script: [
      { say: "This reply is sent ten times faster than it plays.", ms: 3000 },
      { say: "Bye.", after: [{ name: "end_conversation", arguments: {} }] },
    ],
  });
  assert.equal(out.error, undefined, out.error?.message);
  const first = out.audio!.find((a) => a.side === "agent")!;
  // 3.12 s of audio, placed over 3.12 s of the call; it arrived in about 0.3 s.
  assert.ok(Math.abs(first.utterance.durationMs - 3120) <= 20, `${first.utterance.durationMs}`);
  const session = out.traces.agent.find((t) => t.type === "realtime_session")!;
  assert.ok((session.max_queued_ms as number) > 2000, `queued ${session.max_queued_ms} ms ahead`);
  // The caller answered after it had heard the whole reply.
  const reply = out.turns.filter((t) => t.speaker === "user")[1]!;
  assert.ok(reply.start_ms >= first.end_ms, `${reply.start_ms} < ${first.end_ms}`);
});

Deno.test("openai-realtime: a tool that was not offered gets unknown_tool as its output, and the call goes on", async () => {
  const { out, server, env } = await call({
    script: [
      {
        tools: [{ name: "launch_rockets", arguments: {} }, { name: "add", arguments: { n: 5 } }],
        say: "Done.",
      },
      { say: "Bye.", after: [{ name: "end_conversation", arguments: {} }] },
    ],
  });
  assert.equal(out.error, undefined, out.error?.message);
  const first = JSON.parse(server.log.functionOutputs[0]!.output);
  assert.equal(first.error_type, "unknown_tool");
  assert.deepEqual(env.db, { count: 5 });
  assert.equal(out.stopReason, "agent_end");
});

Deno.test("openai-realtime: the server closing the socket mid-response is agent_disconnected, and what the caller heard of the response is a turn", async () => {
  const { out } = await call({
    closeInResponse: 0,
    closeAfterMs: 1000,
    script: [{ say: "I am about to vanish.", ms: 4000 }],
  });
  assert.equal(out.error?.kind, "agent_disconnected");
  assert.match(out.error!.message, /closed the connection \(code 1011/);
  const heard = out.audio!.filter((a) => a.side === "agent");
  assert.equal(heard.length, 1, JSON.stringify(out.turns));
  // 1 s went out in real time; the close came as it did, so about 1 s had played.
  const ms = heard[0]!.utterance.durationMs;
  assert.ok(ms >= 850 && ms <= 1150, `${ms} ms heard`);
  assert.equal(out.turns.filter((t) => t.speaker === "agent").length, 1);
});

Deno.test("openai-realtime: a response that never gets response.done is a turn (what the caller heard), and a reply longer than the silence bound is not silence", async () => {
  const { out } = await call({
    noDone: true,
    script: [
      { say: "This reply plays for longer than the call's silence bound.", ms: 5500 },
      { say: "Bye.", ms: 1000 },
    ],
  }, { maxDurationMs: 25_000 });
  const agent = out.audio!.filter((a) => a.side === "agent");
  assert.ok(agent.length >= 1, `${JSON.stringify(out.turns)} ${out.stopReason}`);
  // 120 ms of lead silence, then 5.5 s: all heard, though the 4 s silence bound passed.
  const first = agent[0]!.utterance.durationMs;
  assert.ok(Math.abs(first - 5620) <= 30, `${first} ms`);
  assert.equal(out.stopReason, "silence");
  assert.equal(agent.length, 2, "the caller answered the first, and the second was heard too");
});

Deno.test("openai-realtime: an event of no known type is a protocol_error naming it", async () => {
  const { out } = await call({
    garbage: JSON.stringify({ type: "response.telepathy.delta", event_id: "x" }),
    script: [],
  });
  assert.equal(out.error?.kind, "protocol_error");
  assert.match(out.error!.message, /unknown type "response.telepathy.delta"/);
});

Deno.test("openai-realtime in g711_ulaw without turn detection: 8 kHz both ways, callbench commits", async () => {
  const server = fakeRealtime({
    key: KEY,
    script: [{ say: "Bye.", after: [{ name: "end_conversation", arguments: {} }] }],
  });
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  try {
    const out = await runCall({
      env,
      agent: new RemoteParticipant({
        url: server.url,
        framing: "openai-realtime",
        apiKey: KEY,
        realtime: { audio: "g711_ulaw", turnDetection: "none" },
      }),
      user: new ScriptedUser({ opening: "Hello there." }),
      agentSetup: setup(),
      userSetup: { ...setup(), side: "user", tools: [] },
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: 10_000 },
      firstSpeaker: "user",
      timedSpeech: true,
      speech: { tts: fakeTts },
    });
    assert.equal(out.error, undefined, out.error?.message);
    assert.equal(out.stopReason, "agent_end");
    const update = server.log.sessionUpdates[0] as { audio: { input: Record<string, unknown> } };
    assert.deepEqual(update.audio.input, { format: { type: "audio/pcmu" }, turn_detection: null });
    const types = server.log.clientTypes;
    const commit = types.indexOf("input_audio_buffer.commit");
    assert.ok(commit > 0 && types[commit + 1] === "response.create", types.join(","));
    const agent = out.audio!.find((a) => a.side === "agent");
    assert.ok(agent, JSON.stringify({ turns: out.turns, traces: out.traces.agent }));
    assert.equal(agent!.utterance.audio?.sampleRate, 8000);
  } finally {
    await server.stop();
  }
});

/**
 * `eval --audio --framing openai-realtime` on the bundled airline scenario against a
 * fake model that replays its reference tools; the one record, checked to have ended
 * completed, agent_end, on the expected hash.
 */
async function evalAirline(extra: string[], options: { mcp?: boolean } = {}) {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [scenario] = (await selectScenarios(root, { scenarios: ["eva_airline__1_4_1"] })).scenarios;
  assert.ok(scenario);
  const reference = (scenario.expect.reference_actions ?? []).filter((a) =>
    a.side === "agent" && a.name !== "end_conversation"
  );
  assert.ok(reference.length >= 2);
  const server = fakeRealtime({
    key: KEY,
    ...options,
    greeting: { say: "Hello, this is the airline." },
    script: [
      {
        tools: reference.map((a) => ({ name: a.name, arguments: a.arguments })),
        say: "All done: your new flight and seat are booked.",
      },
      { say: "Goodbye.", after: [{ name: "end_conversation", arguments: {} }] },
    ],
  });
  try {
    const r = await cli(
      [
        "eval",
        "--audio",
        "--framing",
        "openai-realtime",
        ...extra,
        "--agent",
        server.url,
        "--scenarios",
        scenario.name,
      ],
      "",
      { OPENAI_API_KEY: KEY },
    );
    const records = r.stdout.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(records.length, 1, r.stderr);
    const record = records[0];
    assert.equal(record.status, "completed", JSON.stringify(record.error ?? record.stop_reason));
    assert.equal(record.stop_reason, "agent_end");
    assert.equal(record.final.db_sha256, scenario.expect.db_sha256, "the expected hash");
    return { record, reference, server };
  } finally {
    await server.stop();
  }
}

Deno.test("eval --audio --framing openai-realtime: a realtime model replaying the reference tools ends completed, agent_end, on the expected hash, v2v within 20 ms of what it produced", async () => {
  const out = await Deno.makeTempDir({ prefix: "callbench-realtime-" });
  try {
    const { record, reference, server } = await evalAirline(["--out", out]);
    // The key went in the header only.
    assert.equal(server.log.authorization, `Bearer ${KEY}`);
    assert.ok(!JSON.stringify(record).includes(KEY));
    // Every reference call ran and its output went back to the model.
    const agentCalls = record.tool_calls.filter((t: { side: string }) => t.side === "agent");
    assert.deepEqual(
      agentCalls.map((t: { name: string }) => t.name),
      [...reference.map((a) => a.name), "end_conversation"],
    );
    assert.equal(server.log.functionOutputs.length, reference.length + 1);
    // Its words are in the transcript, its audio in the recording, its usage in the record.
    const words = record.turns.filter((t: { speaker: string }) => t.speaker === "agent").map((
      t: { text: string },
    ) => t.text);
    assert.deepEqual(words, [
      "Hello, this is the airline.",
      "All done: your new flight and seat are booked.",
      "Goodbye.",
    ]);
    const transcript = await Deno.readTextFile(`${out}/transcripts/${transcriptName(record)}`);
    assert.ok(transcript.includes("All done"), transcript.slice(0, 200));
    assert.ok(record.audio.wav, "recorded");
    assert.ok((await Deno.stat(`${out}/${record.audio.wav}`)).size > 100_000);
    assert.equal(record.usage.agent.calls, server.log.responses);
    assert.equal(record.usage.agent.prompt_tokens, FAKE_USAGE.input_tokens * server.log.responses);
    const session = record.participants.agent.settings.session;
    assert.equal(session.usage.output_audio_tokens, 15 * server.log.responses, "audio/text split");
    assert.equal(session.errors, 0);
    assert.equal(record.participants.agent.settings.words, "transcript");
    // Voice-to-voice per turn: the record's, from the audio as played, against the server's.
    const measured = record.audio.turns.map((t: { v2v_ms: number }) => t.v2v_ms);
    assert.equal(measured.length, server.log.producedV2vMs.length, JSON.stringify(record.audio));
    measured.forEach((ms: number, i: number) => {
      const produced = server.log.producedV2vMs[i]!;
      assert.ok(
        Math.abs(ms - produced) <= 20,
        `turn ${i}: recorded ${ms} ms, produced ${produced.toFixed(1)} ms`,
      );
    });
    console.log(
      `v2v recorded ${measured.join("/")} ms, produced ${
        server.log.producedV2vMs.map((x) => x.toFixed(1)).join("/")
      } ms (load ${(await Deno.readTextFile("/proc/loadavg").catch(() => "?")).split(" ", 3)})`,
    );
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("eval: openai-realtime needs --audio; its flags need the framing; bad values are input errors", async () => {
  const base = [
    "eval",
    "--scenarios",
    "eva_airline__1_4_1",
    "--agent",
    "ws://127.0.0.1:9/v1/realtime",
  ];
  const cases: [string[], RegExp][] = [
    [["--framing", "openai-realtime"], /openai-realtime carries audio only/],
    [["--realtime-audio", "pcm16"], /--realtime-audio.*needs --framing openai-realtime/],
    [
      ["--audio", "--framing", "openai-realtime", "--realtime-audio", "opus"],
      /unknown format "opus"/,
    ],
    [
      ["--audio", "--framing", "openai-realtime", "--turn-detection", "eager"],
      /unknown turn detection/,
    ],
  ];
  for (const [extra, why] of cases) {
    const r = await cli([...base, ...extra]);
    assert.equal(r.code, 2, `${extra.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, why);
  }
});

Deno.test("eval --tools-server: a realtime agent that runs its tools over the call's MCP endpoint ends on the expected hash, every call in the record; a forged token is refused", async () => {
  const { record, reference, server } = await evalAirline(["--tools-server"], { mcp: true });
  // The tools ran over MCP: no function call crossed the realtime wire.
  assert.equal(server.log.functionOutputs.length, 0);
  assert.deepEqual(
    record.tool_calls.map((t: { name: string }) => t.name),
    [...reference.map((a) => a.name), "end_conversation"],
  );
  assert.equal(server.log.mcp.results.length, reference.length + 1);
  // tools/list was exactly the offered tools; a forged token was refused.
  const offered = (server.log.sessionUpdates[0]!.tools as { type: string; name?: string }[])
    .filter((t) => t.type === "function").map((t) => t.name).sort();
  assert.deepEqual([...server.log.mcp.listed].sort(), offered);
  assert.equal(server.log.mcp.forgedStatus, 401);
  // The record names the server, never the call's token.
  const shown = record.participants.agent.settings.tools_server;
  assert.match(shown, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const mcpTool = (server.log.sessionUpdates[0]!.tools as { type: string; server_url?: string }[])
    .find((t) => t.type === "mcp")!;
  const token = mcpTool.server_url!.split("/").at(-1)!;
  assert.ok(!JSON.stringify(record).includes(token));
});
