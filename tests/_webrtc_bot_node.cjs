// @ts-nocheck: plain JavaScript for Node.
/**
 * A known-behaviour SmallWebRTC bot on another WebRTC stack than callbench's: Google's
 * libwebrtc, as the `@roamhq/wrtc` package ships it prebuilt (callbench's own peer is
 * werift), run by Node (libwebrtc's native threads call back into the runtime, which
 * Deno 2.9.6 does not survive: it crashes when the process ends, or before). Its
 * Deno side, which starts it and reads its log, is `./_webrtc_bot.ts`. It is written from pipecat's SmallWebRTC signalling (an offer POSTed to
 * `/api/offer`, `{sdp, type, pc_id}` back) and RTVI's public message formats, with
 * none of callbench's code on its media path:
 *
 * - It answers each offer with one audio track (libwebrtc's Opus) and takes the
 *   offerer's data channel; RTVI JSON on it: `client-ready` → `bot-ready`, an
 *   `update_system_prompt` is acknowledged, keep-alive `ping`s are counted.
 * - It hears the caller by energy on the decoded track (10 ms frames above -50 dBFS;
 *   an utterance ends after `endSilenceMs` of quieter frames, at the end of its last
 *   loud frame as it arrived here).
 * - It greets `greetMs` after the call starts (`call_event` `call_start`), then answers
 *   caller utterance i exactly `delays[i]` ms after its end: the first sample of the
 *   reply is fed to libwebrtc then. Before its first answer it runs `plan`'s tools, one
 *   after the other, through RTVI (`llm-function-call-in-progress`, waiting for each
 *   `llm-function-call-result`), so the caller's harness runs them in its world. After
 *   its last answer it ends the call (`server-message {type:"end"}`).
 * - It logs every send (`log`): each reply's caller end and first audio, on this
 *   process's `performance.now()`.
 *
 * @module
 */
"use strict";
const http = require("node:http");

const RATE = 48000;
const FRAME = RATE / 100; // 10 ms, as libwebrtc's audio source takes it
const LABEL = "rtvi-ai";

/** The voiced reply: a 150 Hz buzz with harmonics, shaped by 20 ms fades. */
function speech(ms) {
  const n = Math.round((RATE * ms) / 1000);
  const out = new Int16Array(n);
  const fade = RATE / 50;
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const env = Math.min(1, i / fade, (n - i) / fade);
    const v = Math.sin(2 * Math.PI * 150 * t) + 0.5 * Math.sin(2 * Math.PI * 450 * t) +
      0.3 * Math.sin(2 * Math.PI * 1050 * t);
    out[i] = Math.round(6000 * env * v);
  }
  return out;
}

function frameDb(samples) {
  let sum = 0;
  for (const s of samples) sum += s * s;
  const p = sum / Math.max(1, samples.length) / (32768 * 32768);
  return p > 0 ? 10 * Math.log10(p) : -Infinity;
}

/** Starts the bot on 127.0.0.1 (a free port). */
async function startWebRtcBot(options, wrtc) {
  const log = {
    offers: 0,
    pings: 0,
    messages: [],
    replies: [],
    results: [],
    ended: false,
  };
  const peers = [];
  const timers = new Set();
  const greetMs = options.greetMs ?? 300;
  const speechMs = options.speechMs ?? 800;
  const endSilenceMs = options.endSilenceMs ?? 500;
  const answers = options.answers ?? options.delays.length;

  async function answer(offer) {
    const pc = new wrtc.RTCPeerConnection({});
    peers.push(pc);
    const source = new wrtc.nonstandard.RTCAudioSource();
    let channel;
    const send = (type, data, id) =>
      channel?.readyState === "open" &&
      channel.send(JSON.stringify({ label: LABEL, type, ...(id ? { id } : {}), data }));

    // ---- out: 10 ms frames on a real-time grid, silence between replies -------------
    const queue = [];
    let playing;
    const silence = new Int16Array(FRAME);
    const start = performance.now();
    let fed = 0;
    const feed = setInterval(() => {
      const due = Math.floor((performance.now() - start) / 10);
      while (fed < due) {
        fed++;
        if (!playing && queue.length > 0) {
          const next = queue.shift();
          playing = { samples: next.samples, at: 0, onLast: next.onLast };
          next.onFirst?.();
        }
        let frame = silence;
        if (playing) {
          frame = new Int16Array(FRAME);
          frame.set(playing.samples.subarray(playing.at, playing.at + FRAME));
          playing.at += FRAME;
          if (playing.at >= playing.samples.length) {
            const done = playing.onLast;
            playing = undefined;
            done?.();
          }
        }
        source.onData({
          samples: frame,
          sampleRate: RATE,
          bitsPerSample: 16,
          channelCount: 1,
          numberOfFrames: FRAME,
        });
      }
    }, 5);
    timers.add(feed);

    const say = (text, onFirst, onLast) => {
      queue.push({
        samples: speech(speechMs),
        onFirst: () => {
          const at = performance.now();
          send("bot-started-speaking");
          send("bot-tts-text", { text });
          onFirst?.(at);
        },
        onLast: () => {
          send("bot-stopped-speaking");
          onLast?.();
        },
      });
    };

    // ---- tools through RTVI -------------------------------------------------------
    const waiting = new Map();
    let toolsRun;
    const runTools = () =>
      toolsRun ??= (async () => {
        let n = 0;
        for (const tool of options.plan ?? []) {
          const id = `call_${++n}`;
          const result = new Promise((resolve) => waiting.set(id, resolve));
          send("llm-function-call-in-progress", {
            tool_call_id: id,
            function_name: tool.name,
            arguments: tool.arguments ?? {},
          });
          log.results.push({ name: tool.name, result: await result });
        }
      })();

    // ---- in: the caller's utterances by energy ------------------------------------
    let heard = 0;
    let loudUntil;
    let quietMs = 0;
    const onCallerEnd = (endAt) => {
      const i = heard++;
      if (i >= answers) return;
      const delay = options.delays[Math.min(i, options.delays.length - 1)];
      const tools = i === 0 ? runTools() : Promise.resolve();
      const wait = Math.max(0, endAt + delay - performance.now());
      const timer = setTimeout(() => {
        timers.delete(timer);
        void tools.then(() =>
          say(`Reply ${i + 1}.`, (at) => {
            log.replies.push({ callerEndAt: endAt, sentAt: at, delayMs: at - endAt });
          }, () => {
            if (i + 1 < answers) return;
            send("server-message", { type: "end", reason: "done" });
            log.ended = true;
          })
        );
      }, wait);
      timers.add(timer);
    };
    pc.ontrack = (event) => {
      const sink = new wrtc.nonstandard.RTCAudioSink(event.track);
      peers.push({ close: () => sink.stop() });
      sink.ondata = (d) => {
        const now = performance.now();
        const samples = d.samples;
        const ms = (d.numberOfFrames * 1000) / d.sampleRate;
        if (frameDb(samples) > -50) {
          loudUntil = now;
          quietMs = 0;
        } else if (loudUntil !== undefined) {
          quietMs += ms;
          if (quietMs >= endSilenceMs) {
            const end = loudUntil;
            loudUntil = undefined;
            onCallerEnd(end);
          }
        }
      };
    };

    pc.ondatachannel = (event) => {
      channel = event.channel;
      channel.onmessage = (m) => {
        const text = String(m.data);
        if (text.startsWith("ping")) {
          log.pings++;
          return;
        }
        const msg = JSON.parse(text);
        if (msg.label !== LABEL) return;
        log.messages.push(
          msg.type === "client-message" ? `client-message:${msg.data?.t}` : msg.type,
        );
        if (msg.type === "client-ready") send("bot-ready", { version: "2.1.0" }, msg.id);
        if (msg.type === "client-message" && msg.data?.t === "update_system_prompt") {
          send("server-response", { t: "update_system_prompt", d: true }, msg.id);
        }
        if (msg.type === "client-message" && msg.data?.t === "call_event") {
          if (msg.data?.d?.type === "call_start") {
            const timer = setTimeout(() => {
              timers.delete(timer);
              say("Hello, how can I help?");
            }, greetMs);
            timers.add(timer);
          }
        }
        if (msg.type === "llm-function-call-result") {
          waiting.get(msg.data?.tool_call_id)?.(msg.data?.result);
        }
      };
    };

    if (process.env.WEBRTC_BOT_DEBUG) {
      const t0 = Date.now();
      const show = (what) =>
        process.stderr.write(
          `bot +${
            Date.now() - t0
          } ${what} ice=${pc.iceConnectionState} conn=${pc.connectionState}\n`,
        );
      pc.oniceconnectionstatechange = () => show("ice");
      pc.onconnectionstatechange = () => show("conn");
      for (const ms of [2000, 5000, 8000]) {
        setTimeout(() => {
          let dtls = "?";
          try {
            dtls = pc.getTransceivers().map((t) => t.sender?.transport?.state).join(",");
          } catch (e) {
            dtls = String(e);
          }
          show(`dtls=${dtls} sctp=${pc.sctp?.state} sctpdtls=${pc.sctp?.transport?.state}`);
        }, ms);
      }
    }
    await pc.setRemoteDescription(offer);
    pc.addTrack(source.createTrack());
    await pc.setLocalDescription(await pc.createAnswer());
    if (pc.iceGatheringState !== "complete") {
      await new Promise((resolve) => {
        pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && resolve();
      });
    }
    const sdp = edit(pc.localDescription.sdp, options.answerEdit);
    return { sdp, type: "answer", pc_id: `bot-${log.offers}` };
  }

  const server = http.createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (path !== "/api/offer") return reply(404, "not found");
    if (req.method === "PATCH") return reply(204, "");
    if (req.method !== "POST") return reply(405, "method");
    log.offers++;
    let text = "";
    for await (const chunk of req) text += chunk;
    if (options.silent) return; // never answers
    if (options.status) return reply(options.status, { detail: "refused" });
    const answered = await answer(JSON.parse(text));
    reply(200, options.answerEdit === "not-json" ? "<html>" : answered);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/api/offer`,
    log,
    close() {
      for (const t of timers) clearTimeout(t), clearInterval(t);
      for (const pc of peers) {
        try {
          pc.close();
        } catch { /* closed */ }
      }
      server.closeAllConnections?.();
      server.close();
    },
  };
}

/** The answer's SDP as a bad-input test asks for it. */
function edit(sdp, how) {
  const lines = sdp.split("\r\n");
  if (how === "no-audio") {
    // The audio section refused (port 0), as an answerer that takes no audio answers.
    return lines.map((l) => l.startsWith("m=audio ") ? l.replace(/^m=audio \d+/, "m=audio 0") : l)
      .join("\r\n");
  }
  if (how === "pcmu-only") {
    // An answerer with no Opus: its audio names PCMU alone.
    return lines.map((l) =>
      l.startsWith("m=audio ") ? l.replace(/ UDP\/TLS\/RTP\/SAVPF .*/, " UDP/TLS/RTP/SAVPF 0") : l
    ).filter((l) => !/^a=(rtpmap|fmtp|rtcp-fb):111 /.test(l)).join("\r\n").replace(
      /(m=audio [^\r]*\r\n)/,
      "$1a=rtpmap:0 PCMU/8000\r\n",
    );
  }
  if (how === "no-ice") {
    // A password other than its own: no check of ours is ever answered as valid.
    return sdp.replace(/a=ice-pwd:\S+/g, "a=ice-pwd:not0the0password0it0uses");
  }
  return sdp;
}

async function main() {
  const [wrtcPath, optionsJson] = process.argv.slice(2);
  const wrtc = require(wrtcPath);
  const options = JSON.parse(optionsJson);
  const bot = await startWebRtcBot(options, wrtc);
  process.stdout.write(JSON.stringify({ url: bot.url }) + "\n");
  const rl = require("node:readline").createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    process.stdout.write(JSON.stringify({ log: bot.log }) + "\n");
    if (line === "close") {
      bot.close();
      setTimeout(() => process.exit(0), 50);
    }
  });
  rl.on("close", () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + "\n");
  process.exit(1);
});
