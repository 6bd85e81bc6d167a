/**
 * A frame recorder: a WebSocket proxy on 127.0.0.1 that forwards every frame between
 * a client and a bot server unchanged, and records each one with its direction, its
 * framing (JSON text or pipecat protobuf) and the RTVI message it carries. Used to
 * check real calls against the wire schemas and to print PROTOCOL.md's transcript.
 *
 * @module
 */
import { participantFactory } from "../src/participants/registry.ts";
import { decodePipecatFrame } from "../src/protocol/protobuf.ts";
import { runTrial } from "../src/runner/run_trial.ts";
import { trialKey } from "../src/runner/trial_key.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { serveBuiltin } from "./_serve.ts";

/** One recorded frame. */
export interface RecordedFrame {
  /** `client`: client to bot; `server`: bot to client. */
  from: "client" | "server";
  framing: "json" | "protobuf";
  /** The protobuf `Frame` kind (`message`, `audio`, ...), for binary frames. */
  kind?: string;
  /** The decoded RTVI message (JSON frames, and protobuf message frames). */
  message?: unknown;
  /** Milliseconds since the first frame. */
  at_ms: number;
}

export interface WireRecorder {
  /** The proxy's URL: the upstream URL's path and query on the proxy's port. */
  url: (path: string) => string;
  frames: RecordedFrame[];
  close(): Promise<void>;
}

/** A recording proxy in front of `upstream` (`ws://host:port`). */
export function wireRecorder(upstream: string): WireRecorder {
  const frames: RecordedFrame[] = [];
  let t0: number | undefined;
  const record = (from: RecordedFrame["from"], data: string | ArrayBuffer) => {
    const now = performance.now();
    t0 ??= now;
    const at_ms = Math.round(now - t0);
    if (typeof data === "string") {
      frames.push({ from, framing: "json", message: JSON.parse(data), at_ms });
      return;
    }
    const decoded = decodePipecatFrame(new Uint8Array(data));
    if (!decoded.ok) throw new Error(`undecodable protobuf frame from the ${from}`);
    const frame = decoded.frame;
    frames.push({
      from,
      framing: "protobuf",
      kind: frame.kind,
      ...(frame.kind === "message" ? { message: JSON.parse(frame.data) } : {}),
      at_ms,
    });
  };
  const sockets = new Set<WebSocket>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { pathname, search } = new URL(req.url);
    const { socket: down, response } = Deno.upgradeWebSocket(req);
    const up = new WebSocket(`${upstream}${pathname}${search}`);
    up.binaryType = "arraybuffer";
    down.binaryType = "arraybuffer";
    sockets.add(up);
    sockets.add(down);
    const queued: (string | ArrayBuffer)[] = [];
    up.onopen = () => {
      for (const data of queued.splice(0)) up.send(data);
    };
    down.onmessage = (e) => {
      record("client", e.data);
      if (up.readyState === WebSocket.OPEN) up.send(e.data);
      else queued.push(e.data);
    };
    up.onmessage = (e) => {
      record("server", e.data);
      if (down.readyState === WebSocket.OPEN) down.send(e.data);
    };
    const closeBoth = () => {
      for (const s of [up, down]) {
        if (s.readyState === WebSocket.OPEN || s.readyState === WebSocket.CONNECTING) s.close();
      }
    };
    up.onclose = closeBoth;
    down.onclose = closeBoth;
    up.onerror = closeBoth;
    return response;
  });
  return {
    url: (path) => `ws://127.0.0.1:${server.addr.port}${path}`,
    frames,
    async close() {
      const closed = [...sockets].map((s) =>
        s.readyState === WebSocket.CLOSED
          ? Promise.resolve()
          : new Promise<void>((resolve) => s.addEventListener("close", () => resolve()))
      );
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await Promise.all(closed);
      await server.shutdown();
    },
  };
}

/**
 * One call of `scenario` (bundled data root): `eval`'s RTVI client with the scripted
 * caller against the served oracle, through a recorder; the trial's record and the
 * frames.
 */
export async function recordOracleCall(
  scenario: string,
  options: { framing?: "json" | "protobuf"; label: string },
): Promise<{ record: TrialRecord; frames: RecordedFrame[] }> {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const server = await serveBuiltin(root);
  const recorder = wireRecorder(server.url.replace(/\/ws$/, ""));
  try {
    const { scenarios } = await selectScenarios(root, { scenarios: [scenario] });
    const record = await runTrial({
      scenario: scenarios[0]!,
      key: trialKey(scenario, 0, options.label),
      root,
      limits: { silenceMs: 30_000, maxTurns: 200 },
      participants: participantFactory({
        agent: recorder.url("/ws?agent=oracle"),
        user: "scripted",
        agentModel: {},
        userModel: {},
        ...(options.framing ? { framing: options.framing } : {}),
        connectAttempts: 1,
      }),
    });
    return { record, frames: recorder.frames };
  } finally {
    await recorder.close();
    await server.shutdown();
  }
}
