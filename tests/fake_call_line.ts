/**
 * In-memory call lines for participant tests: `recordingLine` records what one
 * participant does; `connectPair` joins two participants so that each hears what the
 * other says, until one hangs up or fails. Time is the wall clock (LLM participants
 * run on it); nothing here sleeps.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantError,
  ToolCallReply,
  Usage,
} from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import type { Side } from "../src/domains/domain.ts";

/** Everything a participant did on a line. */
export interface LineRecord {
  said: { text: string; ttftMs?: number }[];
  pressed: string[];
  toolCalls: { name: string; args: unknown }[];
  usage: Usage[];
  traces: Record<string, unknown>[];
  failures: ParticipantError[];
  hangUps: (string | undefined)[];
}

export type ToolRunner = (name: string, args: unknown) => ToolCallReply;

const succeed: ToolRunner = () => ({ ok: true, result: { status: "success" } });

/** A line that records every action; tool calls are answered by `tools`. */
export function recordingLine(
  side: Side,
  tools: ToolRunner = succeed,
  on: { say?: (text: string) => void; hangUp?: (reason?: string) => void } = {},
): CallLine & { record: LineRecord } {
  const record: LineRecord = {
    said: [],
    pressed: [],
    toolCalls: [],
    usage: [],
    traces: [],
    failures: [],
    hangUps: [],
  };
  return {
    side,
    clock: new RealClock(),
    record,
    say(text, options) {
      record.said.push({
        text,
        ...(options?.ttftMs !== undefined ? { ttftMs: options.ttftMs } : {}),
      });
      on.say?.(text);
    },
    stopSpeaking() {},
    press: (keys) => void record.pressed.push(keys),
    beep() {},
    callTool(name, args) {
      record.toolCalls.push({ name, args });
      return Promise.resolve(tools(name, args));
    },
    hangUp(reason) {
      record.hangUps.push(reason);
      on.hangUp?.(reason);
    },
    usage: (u) => void record.usage.push(u),
    trace: (entry) => void record.traces.push(entry),
    fail: (error) => void record.failures.push(error),
  };
}

/** How a paired call ended. */
export interface PairOutcome {
  by: Side;
  reason: string;
  transcript: { side: Side; text: string }[];
  lines: Record<Side, LineRecord>;
}

/**
 * Starts a call between `agent` and `user` (the agent speaks first unless told) and
 * resolves when one side hangs up, calls `end_conversation` or fails. Each side hears
 * the other's words as `speech` events on a fresh macrotask.
 */
export async function connectPair(
  participants: Record<Side, Participant>,
  setups: Record<Side, CallSetup>,
  options: { firstSpeaker?: Side; tools?: ToolRunner } = {},
): Promise<PairOutcome> {
  const transcript: PairOutcome["transcript"] = [];
  let ended = false;
  let finish!: (outcome: { by: Side; reason: string }) => void;
  const done = new Promise<{ by: Side; reason: string }>((resolve) => (finish = resolve));
  const clock = new RealClock();
  const other = (side: Side): Side => (side === "agent" ? "user" : "agent");
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (fn: () => void) => {
    const id = setTimeout(() => {
      timers.delete(id);
      fn();
    }, 0);
    timers.add(id);
  };
  const deliver = (side: Side, event: CallEvent) => later(() => participants[side].onEvent(event));
  const end = (by: Side, reason: string) => {
    if (ended) return;
    ended = true;
    for (const id of timers) clearTimeout(id);
    for (const side of ["agent", "user"] as const) {
      participants[side].onEvent({ type: "hangup", at: clock.now(), by, reason });
    }
    finish({ by, reason });
  };
  const lineFor = (side: Side) =>
    recordingLine(side, options.tools, {
      say(text) {
        if (ended) return;
        transcript.push({ side, text });
        deliver(other(side), { type: "speech", at: clock.now(), text });
      },
      hangUp: (reason) => end(side, reason ?? "hangup"),
    });
  const lines = { agent: lineFor("agent"), user: lineFor("user") };
  for (const side of ["agent", "user"] as const) {
    const line = lines[side];
    const callTool = line.callTool;
    line.callTool = async (name, args) => {
      const reply = await callTool(name, args);
      // As the harness does: the call ends once the result is delivered.
      if (name === "end_conversation") later(() => end(side, "agent_end"));
      return reply;
    };
    const fail = line.fail;
    line.fail = (error) => {
      fail(error);
      end(side, `error: ${error.kind}`);
    };
    await participants[side].start(line, setups[side]);
  }
  const first = options.firstSpeaker ?? "agent";
  for (const side of ["agent", "user"] as const) {
    deliver(side, { type: "call_start", at: 0, you_speak_first: side === first });
  }
  const outcome = await done;
  await Promise.all([participants.agent.close(), participants.user.close()]);
  return { ...outcome, transcript, lines: { agent: lines.agent.record, user: lines.user.record } };
}

/** Resolves once `predicate()` holds; rejects after `timeoutMs` (checks every few ms). */
export async function waitFor(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
