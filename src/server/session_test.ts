import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { dbHash } from "../canonical/hash.ts";
import { writeFrame } from "../protocol/framing.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { openSession } from "./_session_harness.ts";

const harness = openSession;

const TESTDATA_ROOT = fileURLToPath(new URL("./testdata/root/", import.meta.url));
const types = (msgs: RtviMessage[]) => msgs.map((m) => m.type);
const PROMPT = { prompt: "You are a test agent.", tools: "[]", add_suffix: false };

Deno.test("client-ready 2.1 gets bot-ready echoing the request id", async () => {
  const h = harness();
  const out = await h.send(
    rtvi("client-ready", { version: "2.1.0", about: { library: "x" } }, "r1"),
  );
  assert.deepEqual(out, [rtvi("bot-ready", {
    version: "2.1.0",
    about: { library: "callbench", library_version: "0.1.0" },
  }, "r1")]);
});

Deno.test("a 1.x client is served in legacy form: its version echoed, bot-output with spoken", async () => {
  const h = harness();
  const [ready] = await h.send(rtvi("client-ready", { version: "1.1.0" }, "r1"));
  assert.deepEqual(ready?.data, {
    version: "1.1.0",
    about: { library: "callbench", library_version: "0.1.0" },
  });
  const out = await h.send(rtvi("send-text", { content: "hi" }, "s1"));
  const output = out.find((m) => m.type === "bot-output");
  assert.deepEqual(output?.data, { text: "you said: hi", spoken: true });
});

Deno.test("an incompatible or missing version gets an error-response, then bot-ready anyway", async () => {
  const h = harness();
  const out = await h.send(rtvi("client-ready", { version: "3.0.0" }, "r1"));
  assert.deepEqual(types(out), ["error-response", "bot-ready"]);
  assert.equal(out[0]!.id, "r1");
  assert.match((out[0]!.data as { error: string }).error, /not compatible/);
  const missing = await h.send(rtvi("client-ready", {}, "r2"));
  assert.match((missing[0]!.data as { error: string }).error, /Client version unknown/);
});

Deno.test("update_system_prompt starts the named participant with the scenario and tools", async () => {
  const h = harness();
  const tools = [{ name: "lookup", description: "Look up.", parameters: { type: "object" } }];
  const reply = await h.request("update_system_prompt", {
    ...PROMPT,
    tools: JSON.stringify(tools),
    tool_domain: "toy",
    scenario: "toy__1",
    seed: "ab12",
  });
  assert.deepEqual(reply.data, { t: "update_system_prompt", d: true });
  assert.deepEqual(h.names, ["echo"]);
  assert.deepEqual(h.hosted[0]!.setup, {
    side: "agent",
    scenario: "toy__1",
    domain: "toy",
    prompt: "You are a test agent.",
    tools,
    seed: "ab12",
  });
});

Deno.test("update_system_prompt with an empty prompt replies false, as the reference", async () => {
  const h = harness();
  const reply = await h.request("update_system_prompt", { prompt: "" });
  assert.deepEqual(reply.data, { t: "update_system_prompt", d: false });
  assert.equal(h.hosted.length, 0);
});

Deno.test("reference-form tools {name: kwargs} are resolved through the domain", async () => {
  const h = harness();
  await h.request("update_system_prompt", {
    ...PROMPT,
    tools: JSON.stringify({ SetColorTool: {}, get_color: {} }),
    tool_domain: "toy",
  });
  const specs = h.hosted[0]!.setup!.tools;
  assert.deepEqual(specs.map((t) => t.name), ["set_color", "get_color"]);
  assert.equal(specs[0]!.description, "Paint the house.");
  assert.equal((specs[0]!.parameters as { type: string }).type, "object");

  const bad = await h.request("update_system_prompt", {
    ...PROMPT,
    tools: JSON.stringify({ NoSuchTool: {} }),
    tool_domain: "toy",
  });
  assert.equal(bad.type, "error-response");
  assert.match(
    (bad.data as { error: string }).error,
    /unknown agent tools in domain toy: NoSuchTool/,
  );
  const notJson = await h.request("update_system_prompt", { ...PROMPT, tools: "{oops" });
  assert.match((notJson.data as { error: string }).error, /tools is not valid JSON/);
});

Deno.test("send-text reaches the participant as speech; its reply comes back as bot events", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  const out = await h.send(rtvi("send-text", { content: "hello there", voice: "MACHINE" }, "s1"));
  const events = h.hosted[0]!.events;
  assert.deepEqual(events.map((e) => e.type), ["call_start", "speech"]);
  assert.deepEqual(events[1], { type: "speech", at: 0, text: "hello there", voice: "MACHINE" });
  assert.deepEqual(types(out), [
    "metrics",
    "bot-started-speaking",
    "bot-output",
    "bot-tts-text",
    "bot-stopped-speaking",
    "metrics",
  ]);
  assert.deepEqual(out[0]!.data, { ttfb: [{ processor: "llm", value: 0.12 }] });
  assert.deepEqual(out[2]!.data, {
    text: "you said: hello there",
    spoken: true,
    will_be_spoken: true,
    aggregated_by: "sentence",
    spoken_status: "completed",
  });
  assert.deepEqual(out[3]!.data, { text: "you said: hello there" });
  assert.deepEqual(out[5]!.data, {
    tokens: [{ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 }],
  });
  assert.ok(out.every((m) => m.id === undefined), "server events carry no id");
});

Deno.test('the kick reaches the participant as a kick: the reference\'s first "Hello", or marked by the client', async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  await h.send(rtvi("send-text", { content: "Hello" }, "s1"));
  await h.send(rtvi("send-text", { content: "Hello" }, "s2"));
  await h.send(rtvi("send-text", { content: "Start.", kick: true }, "s3"));
  const speech = h.hosted[0]!.events.filter((e) => e.type === "speech");
  assert.deepEqual(speech.map((e) => e.type === "speech" && [e.text, e.kick === true]), [
    ["Hello", true],
    ["Hello", false],
    ["Start.", true],
  ]);
});

Deno.test("a plain RTVI client gets a participant without any setup", async () => {
  const h = harness();
  const out = await h.send(rtvi("send-text", { content: "hi" }, "s1"));
  assert.ok(types(out).includes("bot-output"));
  assert.equal(h.hosted[0]!.setup!.prompt, "");
});

Deno.test("dtmf buttons (2.1) and a single button (2.0) reach the participant as keys", async () => {
  const h = harness();
  await h.send(rtvi("dtmf", { buttons: ["1", "2", "#"] }, "d1"));
  await h.send(rtvi("dtmf", { button: "*" }, "d2"));
  const keys = h.hosted[0]!.events.filter((e) => e.type === "dtmf").map((e) => e.keys);
  assert.deepEqual(keys, ["12#", "*"]);
  const bad = await h.send(rtvi("dtmf", { buttons: ["x"] }, "d3"));
  assert.equal(bad[0]!.type, "error-response");
  assert.equal(bad[0]!.id, "d3");
});

Deno.test("a tool call goes to the client and waits for its llm-function-call-result", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  const out = await h.send(rtvi("send-text", { content: 'tool lookup {"q":"x"}' }, "s1"));
  assert.deepEqual(out, [rtvi("llm-function-call-in-progress", {
    tool_call_id: "call_1",
    function_name: "lookup",
    arguments: { q: "x" },
  })]);
  assert.equal(h.session.pendingToolCalls, 1);
  const reply = await h.send(rtvi("llm-function-call-result", {
    function_name: "lookup",
    tool_call_id: "call_1",
    arguments: { q: "x" },
    result: { found: 1 },
  }, "f1"));
  assert.equal(h.session.pendingToolCalls, 0);
  assert.deepEqual(reply.find((m) => m.type === "bot-output")?.data, {
    text: 'result: {"found":1}',
    spoken: true,
    will_be_spoken: true,
    aggregated_by: "sentence",
    spoken_status: "completed",
  });
});

Deno.test("a result for an unknown tool_call_id gets an error-response", async () => {
  const h = harness();
  const out = await h.send(rtvi("llm-function-call-result", {
    tool_call_id: "nope",
    result: {},
  }, "f1"));
  assert.deepEqual(out, [rtvi("error-response", { error: "unknown tool_call_id: nope" }, "f1")]);
});

Deno.test("a tool call with no result in time resolves to a timeout error", async () => {
  const h = harness({ toolTimeoutMs: 5_000 });
  await h.request("update_system_prompt", PROMPT);
  await h.send(rtvi("send-text", { content: "tool slow {}" }, "s1"));
  await h.clock.advance(5_000);
  const out = h.socket.take();
  const said = out.find((m) => m.type === "bot-output")?.data as { text: string };
  assert.match(said.text, /"error_type":"timeout"/);
  assert.equal(h.session.pendingToolCalls, 0);
});

Deno.test("press becomes a send_dtmf function call; beep, trace, hangUp become server-messages", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  const press = await h.send(rtvi("send-text", { content: "press 42#" }, "s1"));
  assert.deepEqual(press, [rtvi("llm-function-call-in-progress", {
    tool_call_id: "call_1",
    function_name: "send_dtmf",
    arguments: { keys: "42#" },
  })]);
  const ack = await h.send(rtvi("llm-function-call-result", {
    tool_call_id: "call_1",
    result: { status: "success" },
  }, "f1"));
  assert.deepEqual(ack, []);
  assert.deepEqual((await h.send(rtvi("send-text", { content: "beep" }, "s2")))[0]?.data, {
    type: "beep",
  });
  assert.deepEqual((await h.send(rtvi("send-text", { content: "trace" }, "s3")))[0]?.data, {
    type: "trace",
    entry: { type: "echo", heard: "trace" },
  });
  const bye = await h.send(rtvi("send-text", { content: "bye" }, "s4"));
  assert.deepEqual(bye.at(-1), rtvi("server-message", { type: "end", reason: "done" }));
  assert.deepEqual(bye.find((m) => m.type === "bot-output")?.data, {
    text: "Goodbye.",
    spoken: true,
    will_be_spoken: true,
    aggregated_by: "sentence",
    spoken_status: "completed",
    voice: "VOICE",
  });
  // After the end, the participant's line goes quiet.
  h.hosted[0]!.line!.say("still here?");
  assert.deepEqual(h.socket.take(), []);
});

Deno.test("a participant failure is a fatal error naming its kind", async () => {
  const h = harness();
  const out = await h.send(rtvi("send-text", { content: "fail" }, "s1"));
  assert.deepEqual(out, [rtvi("error", {
    error: "the model is down",
    fatal: true,
    kind: "model_error",
  })]);
});

Deno.test("call_event delivers call events; a hangup ends the call for the participant", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  const start = await h.request("call_event", {
    type: "call_start",
    at: 999,
    you_speak_first: true,
  });
  assert.deepEqual(start.data, { t: "call_event", d: true });
  assert.deepEqual(h.hosted[0]!.events[0], { type: "call_start", at: 0, you_speak_first: true });
  const said = h.socket.messages();
  assert.equal(said.length, 0, "take() already drained the greeting with the reply");
  await h.request("call_event", { type: "hangup", at: 5, by: "user", reason: "user_hangup" });
  assert.equal(h.hosted[0]!.events.at(-1)?.type, "hangup");
  await h.send(rtvi("send-text", { content: "anyone?" }, "s1"));
  assert.equal(h.hosted[0]!.events.filter((e) => e.type === "speech").length, 0);
  const bad = await h.request("call_event", { type: "teleport", at: 1 });
  assert.equal(bad.type, "error-response");
});

Deno.test("unknown handlers and types get error-responses; without an id, an error", async () => {
  const h = harness();
  const unknownT = await h.request("eval", { code: "1+1" });
  assert.deepEqual(unknownT.data, { error: "unknown message type: eval" });
  const unknownType = await h.send(rtvi("append-to-context", { role: "user" }, "x1"));
  assert.deepEqual(unknownType, [rtvi("error-response", {
    error: "Unsupported type append-to-context",
  }, "x1")]);
  const noId = await h.send(rtvi("client-message", { t: 5 }));
  assert.equal(noId[0]!.type, "error");
  assert.deepEqual((noId[0]!.data as { fatal: boolean }).fatal, false);
});

Deno.test("garbage frames are answered with errors and the session lives on", async () => {
  const h = harness();
  assert.equal((await h.raw("{not json"))[0]!.type, "error");
  const badEnvelope = await h.raw('{"label":"rtvi-ai","id":"e1","type":""}');
  assert.deepEqual(types(badEnvelope), ["error-response"]);
  assert.equal(badEnvelope[0]!.id, "e1");
  assert.deepEqual(await h.raw('{"label":"someone-else","type":"x"}'), []);
  assert.equal((await h.raw(Uint8Array.of(0xff, 0xff)))[0]!.type, "error");
  const ready = await h.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
  assert.equal(ready[0]!.type, "bot-ready");
});

Deno.test("a frame over 1 MiB is refused with a clear error and the session lives on", async () => {
  const h = harness();
  const big = JSON.stringify(rtvi("send-text", { content: "x".repeat(1 << 20) }, "big"));
  const out = await h.raw(big);
  assert.equal(out.length, 1);
  assert.equal(out[0]!.type, "error");
  assert.match(
    (out[0]!.data as { error: string }).error,
    /frame too large: \d+ bytes \(limit 1048576\)/,
  );
  assert.equal(h.hosted.length, 0, "the refused frame never reached a participant");
  assert.equal(
    (await h.send(rtvi("client-ready", { version: "2.1.0" }, "r")))[0]!.type,
    "bot-ready",
  );
});

Deno.test("replies use the framing of the client's last frame", async () => {
  const h = harness();
  h.session.receive(writeFrame(rtvi("client-ready", { version: "2.1.0" }, "p1"), "protobuf"));
  await h.session.idle();
  assert.ok(h.socket.frames[0] instanceof Uint8Array);
  assert.equal(h.session.framing, "protobuf");
  assert.equal(h.socket.take()[0]!.id, "p1");
  h.session.receive(writeFrame(rtvi("client-ready", { version: "2.1.0" }, "j1"), "json"));
  await h.session.idle();
  assert.equal(typeof h.socket.frames[0], "string");
});

Deno.test("apply_initialization loads a world the session's tools then run on", async () => {
  const h = harness();
  await h.request("update_system_prompt", { ...PROMPT, tool_domain: "toy" });
  const init = await h.request("apply_initialization", {
    domain: "toy",
    shared_state_init: JSON.stringify({ db: { color: "white", size: 3 } }),
    actions: [{ side: "agent", func_name: "paint", arguments: { color: "blue" } }],
  });
  assert.deepEqual(init.data, { t: "apply_initialization", d: { success: true, errors: [] } });
  const before = await h.request("get_scenario_summary", {});
  assert.deepEqual(before.data, {
    t: "get_scenario_summary",
    d: { actions: [], db_hash: dbHash({ color: "blue", size: 3 }) },
  });

  // The tool runs on the session's world: no function call goes to the client.
  const out = await h.send(rtvi("send-text", { content: 'tool set_color {"color":"red"}' }, "s1"));
  assert.deepEqual(types(out), [
    "server-message",
    "bot-started-speaking",
    "bot-output",
    "bot-tts-text",
    "bot-stopped-speaking",
  ]);
  assert.deepEqual(out[0]!.data, {
    type: "action-applied",
    action: {
      action_type: "set_color",
      name: "set_color",
      arguments: { color: "red" },
      side: "agent",
    },
    tool_domain: "toy",
  });
  const after = await h.request("get_scenario_summary", { include_db: true });
  assert.deepEqual(after.data, {
    t: "get_scenario_summary",
    d: {
      actions: [{
        action_type: "set_color",
        name: "set_color",
        arguments: { color: "red" },
        side: "agent",
      }],
      db_hash: dbHash({ color: "red", size: 3 }),
      db: { color: "red", size: 3 },
    },
  });

  // An exit tool's <exit> text follows its result.
  const exit = await h.send(rtvi("send-text", { content: "tool end_conversation {}" }, "s2"));
  assert.deepEqual(
    exit.at(-1),
    rtvi("server-message", { text: "<exit>The task is finished.</exit>" }),
  );
});

Deno.test("apply_initialization failures are replies, not errors", async () => {
  const h = harness();
  const call = async (d: unknown) =>
    ((await h.request("apply_initialization", d)).data as { d: unknown }).d;
  const notJson = await call({ shared_state_init: "{" }) as { success: boolean; errors: string[] };
  assert.equal(notJson.success, false);
  assert.match(notJson.errors[0]!, /^shared_state_init is not valid JSON: /);
  assert.deepEqual(await call({ shared_state_init: "[1]" }), {
    success: false,
    errors: ["shared_state_init must be a JSON object"],
  });
  assert.deepEqual(await call({ actions: "paint" }), {
    success: false,
    errors: ["actions must be a list"],
  });
  assert.deepEqual(await call({ actions: [{ func_name: "paint" }] }), {
    success: false,
    errors: ["initialization actions need a db"],
  });
  assert.deepEqual(await call({ domain: "nowhere", shared_state_init: '{"db":{"a":1}}' }), {
    success: false,
    errors: ['unknown domain "nowhere"'],
  });
  // The reference bridge always sends one, even with nothing to load.
  assert.deepEqual(await call({}), { success: true, errors: [] });
});

Deno.test("db_path loads from the data root and cannot leave it", async () => {
  const h = harness({ dataRoot: new DataRoot(TESTDATA_ROOT) });
  const call = async (d: unknown) =>
    ((await h.request("apply_initialization", d)).data as {
      d: { success: boolean; errors: string[] };
    }).d;
  assert.deepEqual(await call({ domain: "toy", shared_state_init: '{"db_path":"toy/db.json"}' }), {
    success: true,
    errors: [],
  });
  const summary = await h.request("get_scenario_summary", {});
  assert.equal((summary.data as { d: { db_hash: string } }).d.db_hash, dbHash({ color: "green" }));
  // testdata/secret.json sits just outside the root.
  for (const path of ["../secret.json", "/etc/passwd", "toy/../../secret"]) {
    const r = await call({ domain: "toy", shared_state_init: JSON.stringify({ db_path: path }) });
    assert.equal(r.success, false, path);
    assert.match(r.errors[0]!, /path leaves the data root/);
  }
  const missing = await call({ domain: "toy", shared_state_init: '{"db_path":"nope.json"}' });
  assert.match(missing.errors[0]!, /no such database/);
});

Deno.test("apply_sync_delta sets dotted paths on the session's world", async () => {
  const h = harness();
  const delta = (d: unknown) =>
    h.request("apply_sync_delta", d).then((r) => (r.data as { d: unknown }).d);
  assert.deepEqual(await delta({ delta: { a: 1 } }), {
    success: false,
    errors: ["no db: send apply_initialization first"],
  });
  await h.request("apply_initialization", {
    domain: "toy",
    shared_state_init: JSON.stringify({ db: { line: { status: "off" } } }),
  });
  assert.deepEqual(await delta({ delta: { "line.status": "on" } }), { success: true, errors: [] });
  // As the reference bot: a missing parent is logged, not raised, and the reply succeeds.
  assert.deepEqual(await delta({ delta: { "nothing.here": 1 } }), { success: true, errors: [] });
  assert.deepEqual(await delta({ delta: [1] }), {
    success: false,
    errors: ["delta must be an object"],
  });
  const summary = await h.request("get_scenario_summary", { include_db: true });
  assert.deepEqual((summary.data as { d: { db: unknown } }).d.db, { line: { status: "on" } });
});

Deno.test("a user-side session keeps its world as the user's database", async () => {
  const h = harness({ side: "user" });
  await h.request("apply_initialization", {
    domain: "toy",
    shared_state_init: '{"db":{"wifi":false}}',
  });
  const out = await h.send(rtvi("send-text", { content: "tool toggle_wifi {}" }, "s1"));
  assert.equal(out[0]!.type, "server-message");
  const summary = await h.request("get_scenario_summary", { include_db: true });
  const d = (summary.data as { d: { db: unknown; db_hash: string } }).d;
  assert.deepEqual(d.db, { wifi: true });
  assert.equal(d.db_hash, dbHash({ wifi: true }));
});

Deno.test("get_scenario_summary without a world reports nothing", async () => {
  const h = harness();
  const r = await h.request("get_scenario_summary", { include_db: true });
  assert.deepEqual(r.data, {
    t: "get_scenario_summary",
    d: { actions: [], db_hash: null, db: null },
  });
});

Deno.test("get_context_history returns a JSON string literal of the conversation", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  await h.send(rtvi("send-text", { content: "hi" }, "s1"));
  const r = await h.request("get_context_history", {});
  const context = (r.data as { d: { context: string } }).d.context;
  assert.deepEqual(JSON.parse(JSON.parse(context)), [
    { role: "system", content: "You are a test agent." },
    { role: "user", content: "hi" },
    { role: "assistant", content: "you said: hi" },
  ]);
});

Deno.test("reset restarts the participant with the last setup", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  const r = await h.request("reset", {});
  assert.deepEqual(r.data, { t: "reset", d: true });
  assert.equal(h.hosted.length, 2);
  assert.equal(h.hosted[0]!.closed, true);
  assert.equal(h.hosted[1]!.setup!.prompt, PROMPT.prompt);
  // The old participant's line is dead.
  h.hosted[0]!.line!.say("ghost");
  assert.deepEqual(h.socket.take(), []);
});

Deno.test("a closed socket ends the call for the participant and fails pending tool calls", async () => {
  const h = harness();
  await h.request("update_system_prompt", PROMPT);
  await h.send(rtvi("send-text", { content: "tool lookup {}" }, "s1"));
  assert.equal(h.session.pendingToolCalls, 1);
  await h.session.closed();
  await h.clock.advance(0);
  const p = h.hosted[0]!;
  assert.deepEqual(p.events.at(-1), {
    type: "hangup",
    at: 0,
    by: "user",
    reason: "client disconnected",
  });
  assert.equal(p.closed, true);
  assert.equal(h.session.pendingToolCalls, 0);
  assert.deepEqual(h.socket.frames, [], "nothing is sent to a closed socket");
});

Deno.test("disconnect-bot closes the socket", async () => {
  const h = harness();
  await h.send(rtvi("disconnect-bot", {}, "x"));
  assert.deepEqual(h.socket.closedWith, { code: 1000, reason: "disconnect-bot" });
});

Deno.test("a factory that throws is reported on the request that needed it", async () => {
  const h = harness({
    factory: () => {
      throw new Error('participant "llm" cannot be hosted');
    },
  });
  const r = await h.request("update_system_prompt", PROMPT);
  assert.deepEqual(r.data, { error: 'Error: participant "llm" cannot be hosted' });
  const s = await h.send(rtvi("send-text", { content: "hi" }, "s1"));
  assert.equal(s[0]!.type, "error-response");
});

Deno.test("sessions are independent: one's world and participant are not another's", async () => {
  const a = harness();
  const b = harness();
  await a.request("apply_initialization", {
    domain: "toy",
    shared_state_init: '{"db":{"color":"a"}}',
  });
  await b.send(rtvi("send-text", { content: "hello" }, "s1"));
  const sa = await a.request("get_scenario_summary", {});
  const sb = await b.request("get_scenario_summary", {});
  assert.equal((sa.data as { d: { db_hash: string } }).d.db_hash, dbHash({ color: "a" }));
  assert.equal((sb.data as { d: { db_hash: null } }).d.db_hash, null);
  assert.equal(a.hosted.length, 0);
  assert.equal(b.hosted.length, 1);
});

Deno.test("a client message past the value limits gets an error-response and the session lives", async () => {
  const h = harness();
  let deep: unknown = {};
  for (let i = 0; i < 100; i++) deep = { a: deep };
  const out = await h.send(rtvi("client-message", { t: "reset", d: deep }, "deep1"));
  assert.equal(out.length, 1);
  assert.equal(out[0]!.type, "error-response");
  assert.equal(out[0]!.id, "deep1");
  assert.match((out[0]!.data as { error: string }).error, /nested deeper than 64 levels/);
  assert.deepEqual(h.hosted.length, 0, "nothing reached a participant");
  const ok = await h.request("update_system_prompt", PROMPT);
  assert.deepEqual(ok.data, { t: "update_system_prompt", d: true });
});

Deno.test("apply_sync_delta matches the reference's dotted-path setter on every path shape", async () => {
  const h = harness();
  const delta = (d: Record<string, unknown>) =>
    h.request("apply_sync_delta", { delta: d }).then((r) => (r.data as { d: unknown }).d);
  await h.request("apply_initialization", {
    domain: "toy",
    shared_state_init: JSON.stringify({
      db: { line: { status: "off", tags: ["a"] }, name: "x", list: [{ k: 1 }] },
    }),
  });
  const ok = { success: true, errors: [] };
  assert.deepEqual(await delta({ top: 1 }), ok); // a new top-level key
  assert.deepEqual(await delta({ "line.new": 2 }), ok); // a new key under an existing dict
  assert.deepEqual(await delta({ "missing.x": 3 }), ok); // missing parent: skipped
  assert.deepEqual(await delta({ "a.b.c": 3 }), ok); // missing grandparent: skipped
  assert.deepEqual(await delta({ "name.x": 4 }), ok); // a string parent: skipped
  assert.deepEqual(await delta({ "list.0.k": 5 }), ok); // a list is not indexed by key
  assert.deepEqual(await delta({ "line.tags.x": 6 }), ok); // nor set by key
  // The first failing path stops the rest; those before it stay set.
  assert.deepEqual(await delta({ "line.status": "on", "gone.y": 1, "line.after": true }), ok);
  assert.deepEqual(await delta({ "__proto__": { polluted: true } }), ok);
  const summary = await h.request("get_scenario_summary", { include_db: true });
  assert.deepEqual((summary.data as { d: { db: unknown } }).d.db, {
    line: { status: "on", tags: ["a"], new: 2 },
    name: "x",
    list: [{ k: 1 }],
    top: 1,
  });
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
});
