/**
 * A realtime speech-to-speech server of our own for the `openai-realtime` tests,
 * written from the public API reference (GA event names): `session.created`, then
 * `session.updated` for the client's `session.update` (or an `error`: `refuse`); the
 * caller's `input_audio_buffer.append`s go through a VAD (server turn detection:
 * `speech_started`/`speech_stopped`, `committed`) or wait for the client's commit;
 * each caller turn plays the next step of a script: responses with function calls
 * only, then one that speaks (`response.output_audio.delta` in 100 ms deltas, sent at
 * `speed` times real time, with its transcript), each closed by `response.done` with
 * usage. It records what it produced, so a test can compare the client's measures
 * with it: for each spoken response after a caller turn, the voice-to-voice latency
 * it produced (its first delta's send time plus the leading silence it put in, minus
 * the end of the caller's speech by energy (PROTOCOL.md "Audio measures"), on the
 * caller's schedule: the utterance's earliest chunk arrival less the audio before it).
 *
 * @module
 */
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { speechSpan } from "../src/audio/energy.ts";
import { concatSamples } from "../src/audio/pcm.ts";
import { mulawDecode, mulawEncode } from "../src/audio/mulaw.ts";
import { pcm16FromBytes, pcm16ToBytes } from "../src/audio/pcm.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { SpeechSegmenter, Vad } from "../src/audio/vad.ts";

/** A function call the model makes. */
export interface FakeToolCall {
  name: string;
  arguments: unknown;
}

/** What the model does for one caller turn. */
export interface FakeStep {
  /** Responses of function calls only (no audio), each answered before the next. */
  tools?: FakeToolCall[];
  /** The spoken response after them. */
  say: string;
  /** Its audio's length (default 60 ms a character, at least 600 ms). */
  ms?: number;
  /** Function calls at the end of the spoken response (`end_conversation`). */
  after?: FakeToolCall[];
  /**
   * A second spoken response, given at once when the client asks for one after this
   * one's `after` calls (a model that follows a tool call with its result).
   */
  chain?: FakeStep;
}

export interface FakeRealtimeOptions {
  /** The key expected as `Authorization: Bearer` (else any). */
  key?: string;
  /** Refuse every `session.update` with this message. */
  refuse?: string;
  /** Send no audio (transcripts only). */
  silent?: boolean;
  /** How much faster than real time audio is sent (default 1; Infinity: all at once). */
  speed?: number;
  /** The response when the client asks first (the agent speaks first). */
  greeting?: FakeStep;
  /** One step per caller turn. */
  script: FakeStep[];
  /** Wait after the caller's turn ended before answering (default 200 ms). */
  replyDelayMs?: number;
  /** Silence at the start of each spoken response (default 120 ms). */
  leadSilenceMs?: number;
  /** Close the socket after the first audio delta of this spoken response (0-based)... */
  closeInResponse?: number;
  /** ...or once this much of its audio has gone out, ms. */
  closeAfterMs?: number;
  /** Each audio delta's length, ms (default 100). */
  deltaMs?: number;
  /** Hears the caller cut in (`speech_started`) and goes on sending the response's audio. */
  neverYields?: boolean;
  /** Never closes a spoken response with `response.done`. */
  noDone?: boolean;
  /** Send this raw text after session.updated. */
  garbage?: string;
  /** After session.updated, send a non-fatal `error` event and a `rate_limits.updated`. */
  noise?: boolean;
  /**
   * Run the tools on the server's side, over the MCP endpoint the session offers (its
   * `mcp` tool), as a vendor's agent calls its tools from its own backend; no function
   * call reaches the client.
   */
  mcp?: boolean;
}

/** What the server saw and produced. */
export interface FakeRealtimeLog {
  authorization: string | null;
  sessionUpdates: Record<string, unknown>[];
  clientTypes: string[];
  functionOutputs: { call_id: string; output: string }[];
  truncates: Record<string, unknown>[];
  /** Per spoken response that answered a caller turn: the latency it produced, ms. */
  producedV2vMs: number[];
  /** Caller turns the server heard end. */
  callerTurns: number;
  /**
   * Per caller cut-in while it spoke: ms from the caller's onset (its first non-silent
   * chunk, on the caller's schedule) to the `speech_started` it sent, after which it sent
   * no more audio of that response.
   */
  producedYieldMs: number[];
  /**
   * Per cut-in while it spoke: how much of the item the caller had heard when it sent
   * `speech_started` (each delta playing from when it went out, or when the one before
   * it ended), ms: what `conversation.item.truncate` should say, within a chunk.
   */
  producedHeardMs: number[];
  /** Per spoken response: when its first delta went out (this process's clock). */
  firstDeltaAt: number[];
  /** `mcp`: the tools it listed, what each call returned, and a forged token's HTTP status. */
  mcp: { listed: string[]; results: unknown[]; forgedStatus?: number };
  responses: number;
}

/** Token counts each response reports. */
export const FAKE_USAGE = {
  total_tokens: 50,
  input_tokens: 30,
  output_tokens: 20,
  input_token_details: { audio_tokens: 25, text_tokens: 5, cached_tokens: 0 },
  output_token_details: { audio_tokens: 15, text_tokens: 5 },
};

/** Starts the server on a free loopback port. */
export function fakeRealtime(options: FakeRealtimeOptions) {
  const log: FakeRealtimeLog = {
    authorization: null,
    sessionUpdates: [],
    clientTypes: [],
    functionOutputs: [],
    truncates: [],
    producedV2vMs: [],
    callerTurns: 0,
    producedYieldMs: [],
    producedHeardMs: [],
    firstDeltaAt: [],
    mcp: { listed: [], results: [] },
    responses: 0,
  };
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const auth = req.headers.get("authorization");
    log.authorization = auth;
    if (options.key !== undefined && auth !== `Bearer ${options.key}`) {
      return new Response("bad key", { status: 401 });
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    void session(socket, options, log);
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/v1/realtime?model=fake-realtime`,
    log,
    async stop() {
      for (const s of sockets) {
        try {
          s.close();
        } catch { /* closed */ }
      }
      await server.shutdown();
    },
  };
}

/** Connects to the call's MCP endpoint, lists its tools, and tries a forged token. */
async function connectMcp(
  url: string,
  headers: Record<string, string>,
  log: FakeRealtimeLog,
): Promise<Client> {
  const client = new Client({ name: "fake-realtime-backend", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  const listed = await client.listTools();
  log.mcp.listed = listed.tools.map((t: { name: string }) => t.name);
  const base = url.replace(/\/[0-9a-f]+$/, "");
  const forged = await fetch(base, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${"f".repeat(48)}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  log.mcp.forgedStatus = forged.status;
  await forged.body?.cancel();
  return client;
}

async function session(ws: WebSocket, o: FakeRealtimeOptions, log: FakeRealtimeLog) {
  let n = 0;
  const send = (event: Record<string, unknown>) => {
    if (ws.readyState === WebSocket.OPEN) {
      ws.send(JSON.stringify({ event_id: `event_${++n}`, ...event }));
    }
  };
  // The VAD at the session's rate (it resamples internally, as a stream).
  const vads = {
    pcm16: await Vad.create({ sampleRate: 24000, frameMs: 20 }),
    mulaw: await Vad.create({ sampleRate: 8000, frameMs: 20 }),
  };
  let format: "pcm16" | "mulaw" = "pcm16";
  let rate = 24000;
  let turnDetection = true;
  let configured = false;
  let step = 0;
  let spoken = 0;
  /**
   * The current utterance: when it began on the caller's schedule (the earliest
   * arrival less the audio before it, so a chunk that came late does not move it), and
   * how much of it has come.
   */
  let utterance: { atMs: number; receivedMs: number; pcm: Int16Array[] } | undefined;
  let segmenter = new SpeechSegmenter({ frameMs: 20 });
  let quietChunks = 0;
  /** When the caller's last turn ended (ms, this process's clock), awaiting a spoken reply. */
  let callerEndAt: number | undefined;
  /** Responses to give, in order, one per `response.create` after the first. */
  let queue: (() => Promise<void>)[] = [];
  let cancelled = false;
  let responding = false;
  /** The spoken response being sent: when its first delta went out, and the audio sent. */
  let sending: { firstAt: number; sentMs: number; plays: { at: number; ms: number }[] } | undefined;
  /**
   * How much of the response a listener had heard by `now`: each delta plays from when it
   * went out or when the one before it ends, whichever is later.
   */
  const heardBy = (now: number) => {
    let heard = 0;
    let end = -Infinity;
    for (const p of sending?.plays ?? []) {
      const at = Math.max(p.at, end);
      end = at + p.ms;
      heard += Math.min(Math.max(now - at, 0), p.ms);
    }
    return heard;
  };
  /** The spoken response now being sent (a later one supersedes it: one speaks at a time). */
  let current = 0;
  /** `mcp`: the session's MCP client, once connected. */
  let mcpClient: Promise<Client> | undefined;
  const mcpCall = async (c: FakeToolCall) => {
    const client = await mcpClient!;
    const r = await client.callTool({
      name: c.name,
      arguments: c.arguments as Record<string, unknown>,
    });
    log.mcp.results.push(r.structuredContent ?? r.content);
  };

  const respondFunctions = async (calls: FakeToolCall[]) => {
    const id = `resp_${++log.responses}`;
    send({ type: "response.created", response: { id, status: "in_progress" } });
    calls.forEach((c, i) =>
      send({
        type: "response.function_call_arguments.done",
        response_id: id,
        item_id: `item_fc_${id}_${i}`,
        output_index: i,
        call_id: `call_${id}_${i}`,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
      })
    );
    send({ type: "response.done", response: { id, status: "completed", usage: FAKE_USAGE } });
    await Promise.resolve();
  };

  const respondSpoken = async (s: FakeStep) => {
    const id = `resp_${++log.responses}`;
    const index = spoken++;
    const item = `item_${id}`;
    const mine = ++current;
    responding = true;
    cancelled = false;
    send({ type: "response.created", response: { id, status: "in_progress" } });
    const lead = o.leadSilenceMs ?? 120;
    const ms = s.ms ?? Math.max(600, s.say.length * 60);
    const audio = new Int16Array(((lead + ms) * rate) / 1000);
    audio.set(voicedSignal(rate, ms, 11 + index), (lead * rate) / 1000);
    const deltaMs = o.deltaMs ?? 100;
    const per = (deltaMs * rate) / 1000;
    const speed = o.speed ?? 1;
    const start = performance.now();
    if (!o.silent) {
      for (let at = 0, k = 0; at < audio.length; at += per, k++) {
        if (cancelled || mine !== current || ws.readyState !== WebSocket.OPEN) break;
        // Paced at `speed` times real time from the first delta.
        const due = start + (k * deltaMs) / speed;
        const wait = due - performance.now();
        if (Number.isFinite(speed) && wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (cancelled || mine !== current) break;
        const chunk = audio.subarray(at, at + per);
        if (k === 0 && callerEndAt !== undefined) {
          log.producedV2vMs.push(performance.now() + lead - callerEndAt);
          callerEndAt = undefined;
        }
        if (k === 0) {
          sending = { firstAt: performance.now(), sentMs: 0, plays: [] };
          log.firstDeltaAt.push(sending.firstAt);
        }
        const sent = sending!;
        sent.sentMs += (chunk.length * 1000) / rate;
        sent.plays.push({ at: performance.now(), ms: (chunk.length * 1000) / rate });
        send({
          type: "response.output_audio.delta",
          response_id: id,
          item_id: item,
          output_index: 0,
          content_index: 0,
          delta: (format === "pcm16" ? pcm16ToBytes(chunk) : mulawEncode(chunk)).toBase64(),
        });
        if (o.closeInResponse === index && sent.sentMs >= (o.closeAfterMs ?? 0)) {
          ws.close(1011, "server went away");
          return;
        }
      }
    }
    if (mine !== current) {
      send({ type: "response.done", response: { id, status: "cancelled", usage: FAKE_USAGE } });
      return;
    }
    responding = false;
    sending = undefined;
    if (o.noDone) return;
    if (cancelled) {
      send({ type: "response.done", response: { id, status: "cancelled", usage: FAKE_USAGE } });
      return;
    }
    send({
      type: "response.output_audio.done",
      response_id: id,
      item_id: item,
      output_index: 0,
      content_index: 0,
    });
    send({
      type: "response.output_audio_transcript.done",
      response_id: id,
      item_id: item,
      output_index: 0,
      content_index: 0,
      transcript: s.say,
    });
    if (mcpClient) {
      send({ type: "response.done", response: { id, status: "completed", usage: FAKE_USAGE } });
      // Its own backend ends the call once the goodbye has had time to play.
      await new Promise((r) => setTimeout(r, 400));
      for (const c of s.after ?? []) await mcpCall(c);
      return;
    }
    (s.after ?? []).forEach((c, i) =>
      send({
        type: "response.function_call_arguments.done",
        response_id: id,
        item_id: `item_fc_${id}_${i}`,
        output_index: 1 + i,
        call_id: `call_${id}_${i}`,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
      })
    );
    send({ type: "response.done", response: { id, status: "completed", usage: FAKE_USAGE } });
  };

  /** One caller turn ended: the next step (function responses first, one per create). */
  const nextStep = () => {
    const s = o.script[step++];
    if (!s) return;
    if (mcpClient) {
      // The tools run on the server's side, then it speaks.
      setTimeout(async () => {
        for (const c of s.tools ?? []) await mcpCall(c);
        await respondSpoken(s);
      }, o.replyDelayMs ?? 200);
      return;
    }
    const parts: (() => Promise<void>)[] = [
      ...(s.tools ?? []).map((c) => () => respondFunctions([c])),
      () => respondSpoken(s),
      ...(s.chain ? [() => respondSpoken(s.chain!)] : []),
    ];
    const first = parts.shift()!;
    queue = parts;
    setTimeout(() => void first(), o.replyDelayMs ?? 200);
  };

  const heard = (bytes: Uint8Array) => {
    const samples = format === "mulaw" ? mulawDecode(bytes) : pcm16FromBytes(bytes);
    const pcm = samples instanceof Int16Array ? samples : samples.ok ? samples.samples : undefined;
    if (!pcm) return;
    const now = performance.now();
    const silent = pcm.every((x) => x === 0);
    if (!utterance) {
      if (silent) return;
      utterance = { atMs: now, receivedMs: 0, pcm: [] };
      segmenter = new SpeechSegmenter({ frameMs: 20 });
      vads[format].reset();
      quietChunks = 0;
    }
    utterance.atMs = Math.min(utterance.atMs, now - utterance.receivedMs);
    utterance.receivedMs += (pcm.length * 1000) / rate;
    utterance.pcm.push(pcm);
    for (const e of segmenter.push(vads[format].process(pcm))) {
      if (!turnDetection) continue;
      if (e.type === "start") {
        send({ type: "input_audio_buffer.speech_started", audio_start_ms: e.atMs, item_id: "u" });
        if (responding) {
          if (!o.neverYields) cancelled = true;
          const now = performance.now();
          log.producedYieldMs.push(now - utterance.atMs);
          if (sending) log.producedHeardMs.push(heardBy(now));
        }
      } else {
        send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: e.atMs, item_id: "u" });
        send({ type: "input_audio_buffer.committed", item_id: "u", previous_item_id: null });
        log.callerTurns++;
        // The caller's end of speech as PROTOCOL.md defines it (by energy), on what arrived;
        // the VAD's own stop only tells that the turn is over.
        const span = speechSpan(concatSamples(utterance.pcm), rate);
        callerEndAt = utterance.atMs + (span?.endMs ?? e.atMs);
        nextStep();
      }
    }
    quietChunks = silent ? quietChunks + 1 : 0;
    // A second of silence: the utterance is over (its end was heard above).
    if (quietChunks > 100) utterance = undefined;
  };

  ws.onmessage = (e) => {
    const event = JSON.parse(e.data as string) as Record<string, unknown> & { type: string };
    log.clientTypes.push(event.type);
    switch (event.type) {
      case "session.update": {
        log.sessionUpdates.push(event.session as Record<string, unknown>);
        if (o.refuse) {
          return send({
            type: "error",
            error: { type: "invalid_request_error", code: "invalid_value", message: o.refuse },
          });
        }
        const session = event.session as {
          audio?: { input?: { format?: { type?: string }; turn_detection?: unknown } };
        };
        format = session.audio?.input?.format?.type === "audio/pcmu" ? "mulaw" : "pcm16";
        rate = format === "mulaw" ? 8000 : 24000;
        turnDetection = session.audio?.input?.turn_detection !== null;
        configured = true;
        const offered = (event.session as {
          tools?: { type: string; server_url?: string; headers?: Record<string, string> }[];
        })
          .tools?.find((t) => t.type === "mcp");
        if (o.mcp && offered?.server_url) {
          mcpClient = connectMcp(offered.server_url, offered.headers ?? {}, log);
        }
        send({ type: "session.updated", session: event.session });
        if (o.garbage) ws.send(o.garbage);
        if (o.noise) {
          send({
            type: "error",
            error: { type: "invalid_request_error", code: "item_not_found", message: "no item" },
          });
          send({
            type: "rate_limits.updated",
            rate_limits: [{ name: "tokens", limit: 1000, remaining: 900, reset_seconds: 60 }],
          });
        }
        return;
      }
      case "input_audio_buffer.append": {
        if (!configured) return;
        return heard(Uint8Array.fromBase64(event.audio as string));
      }
      case "input_audio_buffer.commit": {
        log.callerTurns++;
        callerEndAt = performance.now();
        utterance = undefined;
        return send({ type: "input_audio_buffer.committed", item_id: "u", previous_item_id: null });
      }
      case "response.create": {
        const next = queue.shift();
        if (next) return void next();
        if (!turnDetection && step < o.script.length && callerEndAt !== undefined) {
          return nextStep();
        }
        if (o.greeting && log.responses === 0) return void respondSpoken(o.greeting);
        return;
      }
      case "response.cancel":
        cancelled = true;
        return;
      case "conversation.item.create": {
        const item = event.item as { type: string; call_id: string; output: string };
        if (item.type === "function_call_output") {
          log.functionOutputs.push({ call_id: item.call_id, output: item.output });
        }
        return;
      }
      case "conversation.item.truncate":
        log.truncates.push(event);
        return;
    }
  };
  const created = () =>
    send({ type: "session.created", session: { type: "realtime", id: "sess_fake" } });
  // The server's socket opens once the upgrade's response has gone out.
  if (ws.readyState === WebSocket.OPEN) created();
  else ws.addEventListener("open", created);
  await new Promise<void>((resolve) => {
    ws.addEventListener("close", () => resolve());
  });
  vads.pcm16.free();
  vads.mulaw.free();
}
