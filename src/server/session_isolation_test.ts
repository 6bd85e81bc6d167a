/**
 * One client must never take the process down: names a client chooses are looked up
 * as own keys only, and a participant's detached work that fails ends that session's
 * call with an error, never as an unhandled rejection.
 */
import assert from "node:assert/strict";
import type { CallEvent, CallLine, CallSetup, Participant } from "../bridge/call.ts";
import { builtinFactory } from "../commands/serve.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import type { Domain } from "../domains/domain.ts";
import { unhandledRejections } from "../testing/unhandled_rejections.ts";
import { openSession } from "./_session_harness.ts";
import { TOY_DOMAIN, toyDomains } from "./_fake_socket.ts";
import type { HostedParticipantFactory, SessionOptions } from "./session.ts";

/** A session hosting the participant `factory` makes, named "oracle", domains unless given. */
const open = (factory: HostedParticipantFactory, options: Partial<SessionOptions> = {}) =>
  openSession({
    factory,
    participant: { name: "oracle", side: "agent" },
    domains: undefined,
    ...options,
  });

Deno.test("the issue's crash: oracle, apply_initialization with domain constructor, send-text", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const s = open(builtinFactory(root));
  let init: RtviMessage | undefined;
  const seen = await unhandledRejections(async () => {
    const prompt = await s.request("update_system_prompt", {
      prompt: "You are an agent.",
      tools: "[]",
      scenario: "tau2_retail__0",
      tool_domain: "tau2_retail",
    });
    assert.equal(prompt.type, "server-response", JSON.stringify(prompt));
    init = await s.request("apply_initialization", {
      domain: "constructor",
      shared_state_init: JSON.stringify({ db: { users: {} } }),
    });
    await s.send(rtvi("send-text", { content: "Hi, I need help with an order." }, "s1"));
    await s.clock.advance(0);
  });
  assert.deepEqual(seen, []);
  // Refused cleanly: a failure reply naming the domain, nothing loaded.
  const d = (init?.data as { d?: { success: boolean; errors: string[] } }).d;
  assert.equal(d?.success, false, JSON.stringify(init));
  assert.match(d!.errors[0]!, /unknown domain "constructor"/);
});

Deno.test("t: constructor (or any prototype name) is an unknown message type", async () => {
  const s = open(() => Promise.reject(new Error("not needed")), { domains: toyDomains });
  for (const t of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    const reply = await s.request(t, {});
    assert.equal(reply.type, "error-response", `${t}: ${JSON.stringify(reply)}`);
    assert.deepEqual(reply.data, { error: `unknown message type: ${t}` });
  }
});

Deno.test("prototype names as domains, init functions and sync paths are refused cleanly", async () => {
  const s = open(() => Promise.reject(new Error("not needed")), { domains: toyDomains });
  const seen = await unhandledRejections(async () => {
    for (const domain of ["constructor", "__proto__", "toString"]) {
      const r = await s.request("apply_initialization", {
        domain,
        shared_state_init: '{"db":{}}',
      });
      const d = (r.data as { d: { success: boolean; errors: string[] } }).d;
      assert.equal(d.success, false, domain);
    }
    for (const func_name of ["constructor", "__proto__", "toString"]) {
      const r = await s.request("apply_initialization", {
        domain: "toy",
        shared_state_init: '{"db":{"color":"red"}}',
        actions: [{ func_name, arguments: {} }],
      });
      const d = (r.data as { d: { success: boolean; errors: string[] } }).d;
      assert.equal(d.success, false, func_name);
      assert.match(d.errors[0]!, new RegExp(`unknown agent initialization function`));
    }
    const proto = await s.request("apply_initialization", {
      domain: "toy",
      shared_state_init: '{"__proto__":{"polluted":true},"db":{"color":"red"}}',
    });
    assert.equal(proto.type, "server-response");
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
  assert.deepEqual(seen, []);
});

/** A participant whose detached work rejects (as `void this.#play()` did). */
class RejectingParticipant implements Participant {
  readonly info = { kind: "rejecting" };
  #line?: CallLine;
  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }
  // An async onEvent returns a promise the interface says is void: it must not escape.
  async onEvent(event: CallEvent): Promise<void> {
    await Promise.resolve();
    if (event.type === "speech") throw new TypeError("boom in the participant");
    this.#line?.say("unreachable");
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("no unhandled rejection escapes a session: a participant that rejects fails that session", async () => {
  const logs: string[] = [];
  const s = open(() => new RejectingParticipant(), { log: (l) => logs.push(l) });
  const other = open(() => new RejectingParticipant());
  let out: RtviMessage[] = [];
  const seen = await unhandledRejections(async () => {
    out = await s.send(rtvi("send-text", { content: "hello" }, "s1"));
    await s.clock.advance(0);
    out.push(...s.socket.take());
  });
  assert.deepEqual(seen, []);
  const error = out.find((m) => m.type === "error");
  assert.ok(error, JSON.stringify(out));
  assert.deepEqual(error.data, {
    error: "the hosted participant failed: TypeError: boom in the participant",
    fatal: true,
    kind: "protocol_error",
  });
  assert.ok(logs.some((l) => l.includes("boom in the participant")), logs.join("\n"));
  // The session lives on: a new prompt starts a new participant; other sessions never noticed.
  const ready = await s.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
  assert.equal(ready[0]!.type, "bot-ready");
  const otherReady = await other.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
  assert.equal(otherReady[0]!.type, "bot-ready");
});

Deno.test("a world that throws inside a tool call fails that session's call, not the process", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  // A broken domain: validating any tool's arguments throws (Environment.call does not catch it).
  const broken: Domain = {
    ...TOY_DOMAIN,
    tools: TOY_DOMAIN.tools.map((t) => ({
      ...t,
      name: "find_user_id_by_name_zip",
      args: {
        safeParse: () => {
          throw new TypeError("the world is broken");
        },
      } as never,
    })),
  };
  const s = open(builtinFactory(root), { domains: () => Promise.resolve(broken) });
  let out: RtviMessage[] = [];
  const seen = await unhandledRejections(async () => {
    await s.request("update_system_prompt", {
      prompt: "You are an agent.",
      tools: "[]",
      scenario: "tau2_retail__0",
      tool_domain: "toy",
    });
    const init = await s.request("apply_initialization", {
      domain: "toy",
      shared_state_init: '{"db":{}}',
    });
    assert.deepEqual((init.data as { d: unknown }).d, { success: true, errors: [] });
    out = await s.send(rtvi("send-text", { content: "Hi" }, "s1"));
    await s.clock.advance(0);
    out.push(...s.socket.take());
  });
  assert.deepEqual(seen, []);
  const error = out.find((m) => m.type === "error");
  assert.deepEqual(error?.data, {
    error: "the hosted participant failed: TypeError: the world is broken",
    fatal: true,
    kind: "protocol_error",
  }, JSON.stringify(out));
  // The session still answers.
  const summary = await s.request("get_scenario_summary", {});
  assert.equal(summary.type, "server-response");
});
