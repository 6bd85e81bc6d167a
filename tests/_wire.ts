/**
 * Helpers for the wire tests: a bot server on 127.0.0.1 hosting echo participants,
 * a raw RTVI WebSocket client, and a CallLine that records what a remote
 * participant does.
 *
 * @module
 */
import type {
  CallLine,
  Clock,
  ParticipantError,
  ToolCallReply,
  Usage,
  Voice,
} from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import type { Side } from "../src/domains/domain.ts";
import { type Framing, readFrame, writeFrame } from "../src/protocol/framing.ts";
import { parseMessage, type RtviMessage } from "../src/protocol/messages.ts";
import { EchoParticipant } from "../src/server/_echo_participant.ts";
import { type RunningServer, serve, type ServeOptions } from "../src/server/serve.ts";

export interface EchoServer extends RunningServer {
  hosted: { name: string; participant: EchoParticipant }[];
}

/** A bot server on a free loopback port whose participants are echo doubles. */
export async function echoServer(options: Partial<ServeOptions> = {}): Promise<EchoServer> {
  const hosted: EchoServer["hosted"] = [];
  const server = await serve({
    hostname: "127.0.0.1",
    port: 0,
    factory: (name) => {
      const participant = new EchoParticipant();
      hosted.push({ name, participant });
      return participant;
    },
    ...options,
  });
  return Object.assign(server, { hosted });
}

/** A minimal RTVI client on a real socket. */
export class RawClient {
  readonly ws: WebSocket;
  readonly framing: Framing;
  readonly received: RtviMessage[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<CloseEvent>;
  #waiters: { pred: (m: RtviMessage) => boolean; resolve: (m: RtviMessage) => void }[] = [];

  constructor(url: string, framing: Framing = "json") {
    this.framing = framing;
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = (e) => reject(new Error((e as ErrorEvent).message || "socket error"));
    });
    this.closed = new Promise((resolve) => (this.ws.onclose = (e) => resolve(e)));
    this.ws.onmessage = (event) => {
      const frame = readFrame(event.data);
      if (!frame.ok || !("text" in frame)) throw new Error("undecodable frame from the server");
      const parsed = parseMessage(frame.text);
      if (!parsed.ok || !parsed.message) throw new Error(`not RTVI: ${frame.text}`);
      const msg = parsed.message;
      this.received.push(msg);
      const hit = this.#waiters.findIndex((w) => w.pred(msg));
      if (hit >= 0) this.#waiters.splice(hit, 1)[0]!.resolve(msg);
    };
  }

  send(msg: RtviMessage): void {
    this.ws.send(writeFrame(msg, this.framing));
  }

  /** The next message (already received or still to come) that matches. */
  next(pred: (m: RtviMessage) => boolean, timeoutMs = 5000): Promise<RtviMessage> {
    const seen = this.received.find(pred);
    if (seen) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("timed out waiting for a message")),
        timeoutMs,
      );
      this.#waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          this.received.splice(this.received.indexOf(m), 1);
          resolve(m);
        },
      });
    });
  }

  async close(): Promise<void> {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.close();
    await this.closed;
  }
}

/** Everything a remote participant did on its line, in order. */
export type LineAct =
  | { act: "say"; text: string; voice?: Voice; ttftMs?: number }
  | { act: "stopSpeaking" }
  | { act: "press"; keys: string }
  | { act: "beep" }
  | { act: "callTool"; name: string; args: unknown }
  | { act: "hangUp"; reason?: string; agentEnd?: boolean }
  | { act: "usage"; usage: Usage }
  | { act: "trace"; entry: Record<string, unknown> }
  | { act: "fail"; kind: string; message: string };

export class RecordingLine implements CallLine {
  readonly side: Side;
  readonly clock: Clock;
  readonly acts: LineAct[] = [];
  #waiters: { pred: (a: LineAct) => boolean; resolve: (a: LineAct) => void }[] = [];
  /** What a tool call returns (the harness's world, in miniature). */
  tool: (name: string, args: unknown) => ToolCallReply = (name, args) => ({
    ok: true,
    result: { tool: name, echo: args },
  });

  constructor(side: Side = "agent", clock: Clock = new RealClock()) {
    this.side = side;
    this.clock = clock;
  }

  #record(a: LineAct): void {
    this.acts.push(a);
    const hit = this.#waiters.findIndex((w) => w.pred(a));
    if (hit >= 0) this.#waiters.splice(hit, 1)[0]!.resolve(a);
  }

  /** The first act (past or future) that matches. */
  when(pred: (a: LineAct) => boolean, timeoutMs = 5000): Promise<LineAct> {
    const seen = this.acts.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("timed out waiting for a line act")),
        timeoutMs,
      );
      this.#waiters.push({
        pred,
        resolve: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
      });
    });
  }

  /** When each `say`'s turn began (`startMs`), apart from the acts: timing, not content. */
  readonly starts: (number | undefined)[] = [];

  say(text: string, options?: { voice?: Voice; ttftMs?: number; startMs?: number }): void {
    const { startMs, ...rest } = options ?? {};
    this.starts.push(startMs);
    this.#record({ act: "say", text, ...rest });
  }
  stopSpeaking(): void {
    this.#record({ act: "stopSpeaking" });
  }
  press(keys: string): void {
    this.#record({ act: "press", keys });
  }
  beep(): void {
    this.#record({ act: "beep" });
  }
  callTool(name: string, args: unknown): Promise<ToolCallReply> {
    this.#record({ act: "callTool", name, args });
    return Promise.resolve(this.tool(name, args));
  }
  hangUp(reason?: string, options?: { agentEnd?: boolean }): void {
    this.#record({ act: "hangUp", reason, ...(options?.agentEnd ? { agentEnd: true } : {}) });
  }
  usage(usage: Usage): void {
    this.#record({ act: "usage", usage });
  }
  trace(entry: Record<string, unknown>): void {
    this.#record({ act: "trace", entry });
  }
  fail(error: ParticipantError): void {
    this.#record({ act: "fail", kind: error.kind, message: error.message });
  }
}
