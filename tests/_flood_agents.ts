/**
 * Misbehaving agents on loopback, for the hardening tests and `bench:abuse`: each is
 * a WebSocket server that greets like a real bot (RTVI `bot-ready` and
 * `server-response`, or a Twilio stream endpoint) and then, once the call starts,
 * floods callbench with one kind of output as fast as the socket takes it (at most
 * `maxFrames` frames; sending waits while more than 4 MB are buffered). What each
 * sends is known exactly, so a test can say what callbench must make of it.
 *
 * - {@link rtviFloodAgent}: an RTVI bot (JSON frames) whose turn never ends (`segments`,
 *   `llm_text`, `tts_text`), that calls tools without end (`tool_calls`), that sends
 *   audio far faster than real time (`audio`), that floods trace entries (`traces`), or
 *   that claims an error kind of its own in a fatal `error` (`fatal_kind`).
 * - {@link twilioFloodAgent}: a Twilio Media Streams endpoint that floods `media` or
 *   `mark`s.
 * - {@link rawBadUtf8Agent}: an RTVI bot on a raw socket that, once the call starts,
 *   sends a text frame that is not UTF-8 (no WebSocket server library sends one).
 *
 * @module
 */
import { encodeBase64 } from "../src/protocol/audio_payload.ts";

/** What an RTVI flood agent sends once the call starts. */
export type RtviFlood =
  | "segments"
  | "llm_text"
  | "tts_text"
  | "tool_calls"
  | "audio"
  | "fatal_kind"
  | "traces";

export interface FloodOptions {
  /** Frames sent at most (default 2,000,000). */
  maxFrames?: number;
  /** Text of each fragment (default 1,000 characters of words). */
  text?: string;
  /** `tool_calls`: characters of each call's `arguments` (default 900,000). */
  argChars?: number;
  /** `tool_calls`: the tool called (default `get_counter`). */
  tool?: string;
  /** `audio`: milliseconds of 16 kHz audio in each frame (default 100). */
  frameMs?: number;
  /** `fatal_kind`: the kind the bot claims (default `agent_unauthorized`). */
  kind?: string;
  /** `fatal_kind`: the error's text (default "the caller is not allowed here"). */
  errorText?: string;
}

/** A running flood agent. */
export interface FloodAgent {
  /** Where to point `eval --agent`. */
  url: string;
  /** Frames of the flood sent so far. */
  readonly sent: number;
  /** When the flood started (performance.now()), if it did. */
  readonly startedAt?: number;
  /** When callbench closed the socket (performance.now()), if it did. */
  readonly closedAt?: number;
  close(): Promise<void>;
}

const BUFFERED_MAX = 4 << 20;
const WORDS = "lorem ipsum dolor sit amet ";

function words(chars: number): string {
  return WORDS.repeat(Math.ceil(chars / WORDS.length)).slice(0, chars);
}

/** Sends `frame(i)` until the socket closes or `max` frames are out, yielding between batches. */
async function pump(
  socket: WebSocket,
  frame: (i: number) => string,
  max: number,
  count: (n: number) => void,
): Promise<void> {
  let i = 0;
  while (socket.readyState === WebSocket.OPEN && i < max) {
    if (socket.bufferedAmount > BUFFERED_MAX) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    for (let k = 0; k < 64 && i < max; k++) {
      try {
        socket.send(frame(i++));
      } catch {
        return;
      }
    }
    count(i);
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** The flood's frames, RTVI JSON. */
function rtviFrames(
  flood: RtviFlood,
  o: FloodOptions,
): { first?: string[]; frame: (i: number) => string } {
  const msg = (type: string, data: unknown) => JSON.stringify({ label: "rtvi-ai", type, data });
  const text = o.text ?? words(1000);
  switch (flood) {
    case "segments":
      return { frame: (i) => msg("bot-output", { text, segment_id: `s${i}`, spoken: true }) };
    case "llm_text":
      return { frame: () => msg("bot-llm-text", { text }) };
    case "tts_text":
      return {
        first: [msg("bot-started-speaking", {})],
        frame: () => msg("bot-tts-text", { text }),
      };
    case "tool_calls": {
      const args = JSON.stringify({ note: words(o.argChars ?? 900_000) });
      const name = o.tool ?? "get_counter";
      return {
        frame: (i) =>
          msg("llm-function-call-in-progress", {
            tool_call_id: `call_${i}`,
            function_name: name,
            arguments: args,
          }),
      };
    }
    case "audio": {
      const samples = (16000 * (o.frameMs ?? 100)) / 1000;
      const pcm = new Int16Array(samples);
      for (let s = 0; s < samples; s++) pcm[s] = Math.round(8000 * Math.sin(s / 5));
      const audio = encodeBase64(new Uint8Array(pcm.buffer));
      return {
        first: [msg("bot-started-speaking", {})],
        frame: () => msg("bot-tts-audio", { audio, sample_rate: 16000, num_channels: 1 }),
      };
    }
    case "traces":
      return { frame: (i) => msg("server-message", { type: "trace", entry: { i, text } }) };
    case "fatal_kind":
      return {
        frame: () =>
          msg("error", {
            error: o.errorText ?? "the caller is not allowed here",
            fatal: true,
            kind: o.kind ?? "agent_unauthorized",
          }),
      };
  }
}

/** An RTVI bot that floods callbench once the call starts (see the module doc). */
export function rtviFloodAgent(flood: RtviFlood, options: FloodOptions = {}): FloodAgent {
  const state: { sent: number; startedAt?: number; closedAt?: number } = { sent: 0 };
  const max = flood === "fatal_kind" ? 1 : options.maxFrames ?? 2_000_000;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    let started = false;
    const send = (type: string, data: unknown, id?: string) =>
      socket.send(JSON.stringify({ label: "rtvi-ai", type, ...(id ? { id } : {}), data }));
    const start = () => {
      if (started) return;
      started = true;
      state.startedAt = performance.now();
      const { first, frame } = rtviFrames(flood, options);
      for (const f of first ?? []) socket.send(f);
      void pump(socket, frame, max, (n) => (state.sent = n));
    };
    socket.onclose = () => (state.closedAt ??= performance.now());
    socket.onmessage = (e) => {
      if (typeof e.data !== "string") return start(); // the caller's audio: the call is on
      const msg = JSON.parse(e.data);
      if (msg.type === "client-ready") send("bot-ready", { version: "2.1.0" }, msg.id);
      if (msg.type === "client-message") {
        if (msg.data?.t !== "call_event") {
          send("server-response", { t: msg.data?.t, d: true }, msg.id);
        } else if (msg.data.d?.type === "call_start") start();
      }
      if (msg.type === "send-text" || msg.type === "raw-audio") start();
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    get sent() {
      return state.sent;
    },
    get startedAt() {
      return state.startedAt;
    },
    get closedAt() {
      return state.closedAt;
    },
    close: () => server.shutdown(),
  };
}

/** What a Twilio flood agent sends once the stream starts. */
export type TwilioFlood = "media" | "marks";

/** A Twilio stream endpoint that floods `media` (160-byte frames of a tone) or `mark`s. */
export function twilioFloodAgent(flood: TwilioFlood, options: FloodOptions = {}): FloodAgent {
  const state: { sent: number; startedAt?: number; closedAt?: number } = { sent: 0 };
  const max = options.maxFrames ?? 2_000_000;
  const tone = new Uint8Array(160);
  for (let s = 0; s < tone.length; s++) tone[s] = s % 2 === 0 ? 0x10 : 0x90; // loud µ-law
  const payload = encodeBase64(tone);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onclose = () => (state.closedAt ??= performance.now());
    socket.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.event !== "start") return;
      const streamSid = msg.start.streamSid;
      state.startedAt = performance.now();
      const frame = flood === "media"
        ? () => JSON.stringify({ event: "media", streamSid, media: { payload } })
        : (i: number) => JSON.stringify({ event: "mark", streamSid, mark: { name: `m${i}` } });
      void pump(socket, frame, max, (n) => (state.sent = n));
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/stream`,
    get sent() {
      return state.sent;
    },
    get startedAt() {
      return state.startedAt;
    },
    get closedAt() {
      return state.closedAt;
    },
    close: () => server.shutdown(),
  };
}

/**
 * An RTVI bot on a raw TCP socket (its own WebSocket framing): it answers
 * `client-ready` and every `client-message`, and when the call starts it sends one
 * text frame whose bytes are not UTF-8.
 */
export function rawBadUtf8Agent(): FloodAgent {
  const state: { sent: number; startedAt?: number; closedAt?: number } = { sent: 0 };
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    conns.add(conn);
    const write = (opcode: number, payload: Uint8Array) => conn.write(wsFrame(opcode, payload));
    let buf = new Uint8Array(0);
    const read = async (): Promise<boolean> => {
      const chunk = new Uint8Array(64 * 1024);
      const n = await conn.read(chunk);
      if (n === null) return false;
      const next = new Uint8Array(buf.length + n);
      next.set(buf);
      next.set(chunk.subarray(0, n), buf.length);
      buf = next;
      return true;
    };
    try {
      // The upgrade.
      let end = -1;
      while ((end = indexOf(buf, "\r\n\r\n")) < 0) if (!(await read())) return;
      const head = new TextDecoder().decode(buf.subarray(0, end));
      buf = buf.subarray(end + 4);
      const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1] ?? "";
      const digest = await crypto.subtle.digest(
        "SHA-1",
        new TextEncoder().encode(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"),
      );
      const accept = btoa(String.fromCharCode(...new Uint8Array(digest)));
      await conn.write(new TextEncoder().encode(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
      ));
      const text = (s: string) => write(1, new TextEncoder().encode(s));
      for (;;) {
        const frame = parseClientFrame(buf);
        if (!frame) {
          if (!(await read())) return;
          continue;
        }
        buf = buf.subarray(frame.length);
        if (frame.opcode === 8) return;
        if (frame.opcode !== 1) continue;
        const msg = JSON.parse(new TextDecoder().decode(frame.payload));
        const reply = (type: string, data: unknown) =>
          text(JSON.stringify({ label: "rtvi-ai", type, id: msg.id, data }));
        if (msg.type === "client-ready") await reply("bot-ready", { version: "2.1.0" });
        if (msg.type === "client-message" && msg.data?.t !== "call_event") {
          await reply("server-response", { t: msg.data?.t, d: true });
        }
        const starts = msg.type === "send-text" ||
          (msg.type === "client-message" && msg.data?.d?.type === "call_start");
        if (starts && state.sent === 0) {
          state.startedAt = performance.now();
          state.sent = 1;
          // `{"text":"` then 0xC3 0x28 (an invalid two-byte sequence) then `"}`.
          await write(
            1,
            new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
          );
        }
      }
    } catch {
      // the peer went away
    } finally {
      state.closedAt ??= performance.now();
      conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed */ }
    }
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) void serve(conn);
    } catch { /* closed */ }
  })();
  return {
    url: `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/ws`,
    get sent() {
      return state.sent;
    },
    get startedAt() {
      return state.startedAt;
    },
    get closedAt() {
      return state.closedAt;
    },
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await accepting;
    },
  };
}

function indexOf(buf: Uint8Array, s: string): number {
  const needle = new TextEncoder().encode(s);
  outer: for (let i = 0; i + needle.length <= buf.length; i++) {
    for (let j = 0; j < needle.length; j++) if (buf[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** An unmasked server frame. */
function wsFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const head = n < 126 ? [0x80 | opcode, n] : n < 65536 ? [0x80 | opcode, 126, n >> 8, n & 0xff] : [
    0x80 | opcode,
    127,
    0,
    0,
    0,
    0,
    (n >>> 24) & 0xff,
    (n >> 16) & 0xff,
    (n >> 8) & 0xff,
    n & 0xff,
  ];
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

/** One masked client frame at the start of `buf`, if it is all there. */
function parseClientFrame(
  buf: Uint8Array,
): { opcode: number; payload: Uint8Array; length: number } | undefined {
  if (buf.length < 2) return undefined;
  const opcode = buf[0]! & 0x0f;
  let len = buf[1]! & 0x7f;
  let at = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = (buf[2]! << 8) | buf[3]!;
    at = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = Number(new DataView(buf.buffer, buf.byteOffset + 2, 8).getBigUint64(0));
    at = 10;
  }
  const masked = (buf[1]! & 0x80) !== 0;
  const maskAt = at;
  if (masked) at += 4;
  if (buf.length < at + len) return undefined;
  const payload = buf.slice(at, at + len);
  if (masked) { for (let i = 0; i < len; i++) payload[i] = payload[i]! ^ buf[maskAt + (i % 4)]!; }
  return { opcode, payload, length: at + len };
}

/** What {@link measureEval} saw of one `eval` process. */
export interface EvalMeasure {
  code: number;
  stdout: string;
  stderr: string;
  /** RSS when the flood started (or the first sample), MB. */
  rssAtFloodMb: number;
  /** Highest RSS sampled, MB. */
  peakRssMb: number;
  /** From the flood's start to the process's exit, ms. */
  floodToExitMs: number;
  wallMs: number;
}

/**
 * Runs `cli.ts eval` (the `cli` task's permissions) with `args` against `agent`, and
 * samples the process's RSS every 100 ms (`ps`). For `bench:abuse` and the
 * hardening tests.
 */
export async function measureEval(agent: FloodAgent, args: string[]): Promise<EvalMeasure> {
  const { PERMS } = await import("./_cli.ts");
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", "eval", "--agent", agent.url, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const samples: { at: number; mb: number }[] = [];
  let done = false;
  const sampling = (async () => {
    while (!done) {
      // `ps`, since Deno lets only --allow-all read /proc.
      const ps = await new Deno.Command("ps", {
        args: ["-o", "rss=", "-p", String(child.pid)],
        stdout: "piped",
        stderr: "null",
      }).output();
      const kb = Number(new TextDecoder().decode(ps.stdout).trim() || NaN);
      if (Number.isFinite(kb)) samples.push({ at: performance.now(), mb: kb / 1024 });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const out = await child.output();
  const end = performance.now();
  done = true;
  await sampling;
  const started = agent.startedAt ?? t0;
  const atFlood = samples.find((s) => s.at >= started) ?? samples[0];
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
    rssAtFloodMb: Math.round(atFlood?.mb ?? 0),
    peakRssMb: Math.round(Math.max(0, ...samples.map((s) => s.mb))),
    floodToExitMs: Math.round(end - started),
    wallMs: Math.round(end - t0),
  };
}
