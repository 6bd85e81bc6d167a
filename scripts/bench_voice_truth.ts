/**
 * `deno task bench:voice-truth`: callbench's audio measures against ground truth. A test
 * agent of our own (`tests/_truth_agent.ts`) replies exactly D ms after the caller's end
 * of speech, in each framing (RTVI JSON, RTVI protobuf, Twilio), for D in 300, 800, 1500
 * and 3000 ms, with its speech starting at once or after 400 ms of low-level noise. The
 * caller is flite over the real clock on loopback. Per cell it prints the turns measured,
 * v2v's bias (mean error) and max error, TTFA's error, the reference's two latencies'
 * max error against their formulas, and the caller's frames' arrival jitter at the
 * agent (p99) beside callbench's own pacer's lateness (p99).
 *
 * Then barge-in: the truth agent's long replies, cut in on 1.5 s after they begin to
 * play; it stops 300 ms after the caller's onset, or never. Per cell: barge-ins
 * recorded against those it produced, how many read yielded, the yield it produced
 * (p50) and callbench's error against it (bias, max).
 *
 * Then DTMF, all 16 keys: the agent's own tones to callbench in band, under 4 line
 * conditions of its making (clean, 20 dB SNR, and ±2 dB twist at 20 dB SNR);
 * callbench's tones to the agent in band under 4 `--line`s (clean, phone, white@20,
 * loss@20%), the record's `heard` beside the agent's own detector's; and callbench's
 * keys as RTVI `dtmf` messages / Twilio `dtmf` events. Keys heard against sent, and
 * the time error of each key heard against its tone's start (or its press, for events).
 *
 * Usage: deno task bench:voice-truth [--turns N] [--concurrency N] [--only json,twilio]
 *   [--cells v2v,barge,dtmf] [--random N (seeded random conversations a wire, SIP too)
 *   [--first-seed S (the first of the N seeds; the tests use 1-4)]]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { RealClock } from "../src/clock/clock.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { Line } from "../src/audio/line/line.ts";
import { parseLine } from "../src/audio/line/spec.ts";
import {
  arrivalJitter,
  KEY_TONE_MS,
  KeyCaller,
  type KeyLine,
  startTruthAgent,
  TruthCaller,
  type TruthFraming,
} from "../tests/_truth_agent.ts";
import { DELAYS, errors, truthCall } from "../tests/_truth_call.ts";

const { values } = parseArgs({
  options: {
    turns: { type: "string", default: "4" },
    concurrency: { type: "string", default: "3" },
    only: { type: "string" },
    cells: { type: "string", default: "v2v,barge,dtmf" },
    random: { type: "string" },
    "first-seed": { type: "string", default: "1" },
  },
});
const sections = new Set(values.cells.split(","));
const turns = Number(values.turns);
const concurrency = Math.max(1, Number(values.concurrency));
const framings = (values.only?.split(",") ?? ["json", "protobuf", "twilio"]) as TruthFraming[];
const LINES = [
  "Please add five to the counter.",
  "Yes, and then add two more.",
  "Thank you, that is all.",
  "Can you read me the total?",
  "Goodbye now.",
];

interface Cell {
  framing: TruthFraming;
  delay: number;
  leadMs: number;
  measured: number;
  expected: number;
  bias: number;
  maxErr: number;
  ttfaErr: number;
  refMaxErr: number;
  jitterP99: number;
  sendLateP99: number;
  error?: string;
}

const tts = new FliteTts({ voice: "slt" });
const load0 = Deno.loadavg();

// --random N: seeded random conversations a wire instead of the cells (voice_truth_random.ts).
if (values.random !== undefined) {
  const { runRandom } = await import("./voice_truth_random.ts");
  const wires = (values.only?.split(",") ?? ["json", "protobuf", "twilio", "sip"]) as (
    | TruthFraming
    | "sip"
  )[];
  const first = Number(values["first-seed"]);
  if (!Number.isInteger(first) || first < 1) {
    throw new Error("--first-seed: expected an integer >= 1");
  }
  const ok = await runRandom(Number(values.random), wires, tts, concurrency, first);
  await tts.close();
  Deno.exit(ok ? 0 : 1);
}

async function cell(framing: TruthFraming, delay: number, leadMs: number): Promise<Cell> {
  const truth = startTruthAgent({ delays: [delay], leadMs, greetMs: 600 });
  const lines = Array.from({ length: turns }, (_, i) => LINES[i % LINES.length]!);
  const base = { framing, delay, leadMs, expected: turns };
  try {
    const agent = new RemoteParticipant({ url: truth.url, framing });
    const { out, block } = await truthCall(agent, new RealClock(), tts, lines);
    const session = truth.sessions[0]!;
    const e = errors(block, session.replies);
    const greeting = session.replies[0]!;
    const v2v = e.map((x) => x.v2v);
    const sendLate = out.traces.agent.map((t) =>
      ((t.sent as { late_ms?: { p99: number } } | undefined)?.late_ms ??
        (t.late_ms as { p99: number } | undefined))?.p99
    ).find((x) =>
      x !== undefined
    ) ?? NaN;
    return {
      ...base,
      measured: block.turns.length,
      bias: v2v.reduce((s, x) => s + x, 0) / Math.max(1, v2v.length),
      maxErr: Math.max(...v2v.map(Math.abs)),
      ttfaErr: (block.ttfa_ms ?? NaN) - (greeting.speechAt - greeting.callerEndAt),
      refMaxErr: Math.max(...e.map((x) => Math.max(Math.abs(x.refFrame), Math.abs(x.refSegment)))),
      jitterP99: arrivalJitter(session).p99,
      sendLateP99: sendLate,
    };
  } catch (err) {
    return {
      ...base,
      measured: 0,
      bias: NaN,
      maxErr: NaN,
      ttfaErr: NaN,
      refMaxErr: NaN,
      jitterP99: NaN,
      sendLateP99: NaN,
      error: (err as Error).message.split("\n")[0],
    };
  } finally {
    await truth.close();
  }
}

/** Runs `jobs`, `concurrency` at a time. */
async function pool<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) out.push(await jobs[next++]!());
    }),
  );
  return out;
}

// One short call first: a cold process's first call stalls its event loop while it
// compiles, which would be charged to the first cell.
{
  const truth = startTruthAgent({ delays: [300], greetMs: 300 });
  try {
    await truthCall(
      new RemoteParticipant({ url: truth.url }),
      new RealClock(),
      tts,
      LINES.slice(0, 1),
    );
  } finally {
    await truth.close();
  }
}

const jobs: (() => Promise<Cell>)[] = [];
for (const delay of sections.has("v2v") ? DELAYS : []) {
  for (const leadMs of [0, 400]) {
    for (const framing of framings) jobs.push(() => cell(framing, delay, leadMs));
  }
}
const cells = await pool(jobs);

const f = (x: number, d = 1) => Number.isFinite(x) ? x.toFixed(d) : "-";
const order = (c: Cell) => framings.indexOf(c.framing) * 1e6 + c.delay * 10 + c.leadMs / 400;
cells.sort((a, b) => order(a) - order(b));
const loadNow = () => Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
console.log(
  `voice truth: ${turns} turns per cell, flite slt caller, loopback, real clock; ` +
    `load ${load0.map((x) => x.toFixed(2)).join(" ")} -> ${
      Deno.loadavg().map((x) => x.toFixed(2)).join(" ")
    }`,
);
if (cells.length > 0) {
  console.log(
    "| framing | D ms | onset | turns measured | v2v bias ms | v2v max err ms | TTFA err ms | ref max err ms | caller jitter p99 ms | send late p99 ms | ok |",
  );
  console.log("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const c of cells) {
    const ok = !c.error && c.measured === c.expected && Math.abs(c.bias) <= 20 && c.maxErr <= 40 &&
      Math.abs(c.ttfaErr) <= 40;
    console.log(
      `| ${c.framing} | ${c.delay} | ${
        c.leadMs ? "400 ms noise" : "at once"
      } | ${c.measured}/${c.expected} | ${f(c.bias)} | ${f(c.maxErr)} | ${f(c.ttfaErr)} | ${
        f(c.refMaxErr)
      } | ${f(c.jitterP99)} | ${f(c.sendLateP99)} | ${
        ok ? "yes" : `NO${c.error ? ` (${c.error})` : ""}`
      } |`,
    );
  }
}

// ---- barge-in and DTMF -------------------------------------------------------------------

const BARGE_LINES = [
  "Please add five to the counter.",
  "Wait, wait, stop, I have a question.",
  "No, hold on, listen to me please.",
  "Sorry, one more thing before that.",
  "Hang on, let me say something.",
];

interface BargeCell {
  framing: TruthFraming;
  yieldMs: number | null;
  recorded: number;
  produced: number;
  yielded: number;
  producedP50: number;
  bias: number;
  maxErr: number;
  error?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
};

async function bargeCell(framing: TruthFraming, yieldMs: number | null): Promise<BargeCell> {
  const truth = startTruthAgent({ delays: [300], greetMs: 600, bargeIn: { yieldMs } });
  const lines = Array.from({ length: turns + 1 }, (_, i) => BARGE_LINES[i % BARGE_LINES.length]!);
  const base = { framing, yieldMs };
  try {
    const agent = new RemoteParticipant({ url: truth.url, framing });
    const { block } = await truthCall(agent, new RealClock(), tts, lines, {
      user: new TruthCaller(lines, 300, 1500),
    });
    const produced = truth.sessions[0]!.bargeIns;
    const own = block.barge_ins.filter((b) => b.source === "agent_audio");
    const err = own.map((b, i) => b.yield_ms - (produced[i]?.yieldMs ?? NaN));
    return {
      ...base,
      recorded: own.length,
      produced: produced.length,
      yielded: own.filter((b) => b.yielded).length,
      producedP50: median(produced.map((p) => p.yieldMs)),
      bias: err.reduce((a, b) => a + b, 0) / Math.max(1, err.length),
      maxErr: Math.max(...err.map(Math.abs)),
    };
  } catch (e) {
    return {
      ...base,
      recorded: 0,
      produced: 0,
      yielded: 0,
      producedP50: NaN,
      bias: NaN,
      maxErr: NaN,
      error: (e as Error).message.split("\n")[0],
    };
  } finally {
    await truth.close();
  }
}

if (sections.has("barge")) {
  const load = loadNow();
  const bjobs = framings.flatMap((f) => [300, null].map((y) => () => bargeCell(f, y)));
  const bcells = await pool(bjobs);
  bcells.sort((a, b) =>
    framings.indexOf(a.framing) - framings.indexOf(b.framing) ||
    (a.yieldMs ?? 1e9) - (b.yieldMs ?? 1e9)
  );
  console.log(
    `\nbarge-in: ${turns} per cell, cut in 1.5 s into each long reply; load ${load} -> ${loadNow()}`,
  );
  console.log(
    "| framing | agent | barge-ins recorded / produced | read yielded | produced yield p50 ms | reported - produced: bias ms | max err ms | ok |",
  );
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const c of bcells) {
    const yields = c.yieldMs !== null;
    const ok = !c.error && c.recorded === c.produced && c.produced === turns &&
      c.yielded === (yields ? turns : 0) && (!yields || c.maxErr <= 20);
    console.log(
      `| ${c.framing} | ${
        yields ? `stops ${c.yieldMs} ms after` : "never stops"
      } | ${c.recorded}/${c.produced} | ${c.yielded} | ${f(c.producedP50)} | ${f(c.bias)} | ${
        f(c.maxErr)
      } | ${ok ? "yes" : `NO${c.error ? ` (${c.error})` : ""}`} |`,
    );
  }
}

const ALL_KEYS = "123A456B789C*0#D";
const SLOT_MS = 2 * KEY_TONE_MS;

interface KeyCell {
  direction: string;
  framing: TruthFraming;
  line: string;
  /** What callbench's record says was heard. */
  record: string;
  /** What the agent heard (its own detector, or the events it got); "" when not the listener. */
  agent: string;
  /** Each key heard's time less its tone's start (or its press), ms. */
  timeErr: number[];
  ok: boolean;
  error?: string;
}

/** Each heard key's time against the tone slot it falls in (`start` the first tone's), ms. */
const slotErrors = (ats: number[], start: number) =>
  ats.map((at) => {
    const slot = Math.max(0, Math.round((at - start) / SLOT_MS));
    return at - start - slot * SLOT_MS;
  });

async function keyCell(
  direction: "agent" | "inband" | "event",
  framing: TruthFraming,
  line: string,
): Promise<KeyCell> {
  const KEY_LINES: Record<string, KeyLine> = {
    clean: {},
    "20 dB SNR": { snrDb: 20, seed: 5 },
    "20 dB SNR, +2 dB twist": { snrDb: 20, twistDb: 2, seed: 6 },
    "20 dB SNR, -2 dB twist": { snrDb: 20, twistDb: -2, seed: 7 },
  };
  const truth = startTruthAgent({
    delays: [300],
    greetMs: 600,
    keys: direction === "agent" ? ALL_KEYS : "",
    ...(direction === "agent" ? { keyLine: KEY_LINES[line]! } : {}),
  });
  const base = { direction, framing, line };
  try {
    const user = new KeyCaller(direction === "agent" ? "" : ALL_KEYS, 4500);
    const agent = new RemoteParticipant({ url: truth.url, framing });
    const { out, origin } = await truthCall(agent, new RealClock(), tts, [], {
      user,
      ...(direction === "inband" && line !== "clean"
        ? { line: new Line(parseLine(line), 11) }
        : {}),
      dtmf: direction === "event" ? "event" : "inband",
    });
    const s = truth.sessions[0]!;
    if (direction === "agent") {
      const keys = out.dtmf.filter((d) => d.side === "agent");
      const record = keys.map((d) => d.keys).join("");
      return {
        ...base,
        record,
        agent: "",
        timeErr: slotErrors(keys.map((d) => d.at_ms + origin), s.keysSent[0]?.at ?? NaN),
        ok: record === ALL_KEYS,
      };
    }
    if (direction === "event") {
      const agentKeys = s.keyEvents.map((k) => k.key).join("");
      return {
        ...base,
        record: out.dtmf.filter((d) => d.side === "user").map((d) => d.keys).join(""),
        agent: agentKeys,
        timeErr: s.keyEvents.map((k) => k.at - (origin + user.pressedAt)),
        ok: agentKeys === ALL_KEYS,
      };
    }
    const tone = out.tones?.find((t) => t.side === "user");
    const agentKeys = s.keysHeard.map((k) => k.key).join("");
    return {
      ...base,
      record: tone?.heard ?? "",
      agent: agentKeys,
      timeErr: slotErrors(s.keysHeard.map((k) => k.at), origin + (tone?.start_ms ?? NaN)),
      // On a loss line a tone cut to 40-50 ms may go either way for two detectors: the
      // record must hold no key that was not sent, and say whether it agrees.
      ok: line.startsWith("loss")
        ? [...(tone?.heard ?? "")].every((k) => ALL_KEYS.includes(k))
        : tone?.heard === ALL_KEYS && agentKeys === ALL_KEYS,
    };
  } catch (e) {
    return {
      ...base,
      record: "",
      agent: "",
      timeErr: [],
      ok: false,
      error: (e as Error).message.split("\n")[0],
    };
  } finally {
    await truth.close();
  }
}

if (sections.has("dtmf")) {
  const load = loadNow();
  const kjobs: (() => Promise<KeyCell>)[] = [];
  for (const framing of framings) {
    for (const l of ["clean", "20 dB SNR", "20 dB SNR, +2 dB twist", "20 dB SNR, -2 dB twist"]) {
      kjobs.push(() => keyCell("agent", framing, l));
    }
    for (const l of ["clean", "phone", "white@20", "loss@20%"]) {
      kjobs.push(() => keyCell("inband", framing, l));
    }
    kjobs.push(() => keyCell("event", framing, "clean"));
  }
  const kcells = await pool(kjobs);
  const dirOrder = ["agent", "inband", "event"];
  kcells.sort((a, b) =>
    dirOrder.indexOf(a.direction) - dirOrder.indexOf(b.direction) ||
    framings.indexOf(a.framing) - framings.indexOf(b.framing)
  );
  console.log(`\nDTMF: the 16 keys ${ALL_KEYS}; load ${load} -> ${loadNow()}`);
  console.log(
    "| keys | framing | line | record heard | agent heard | keys heard right / extra | record = agent | time err p50 ms | max ms | ok |",
  );
  console.log("| --- | --- | --- | --- | --- | ---: | --- | ---: | ---: | --- |");
  const what: Record<string, string> = {
    agent: "agent's tones -> callbench",
    inband: "callbench's tones -> agent",
    event: "callbench's keys as dtmf events -> agent",
  };
  /** Keys of `heard` in order in `sent` (the longest common subsequence). */
  const inOrder = (heard: string, sent: string) => {
    let row = new Array<number>(sent.length + 1).fill(0);
    for (const h of heard) {
      const next = [0];
      for (let j = 1; j <= sent.length; j++) {
        next[j] = h === sent[j - 1] ? row[j - 1]! + 1 : Math.max(row[j]!, next[j - 1]!);
      }
      row = next;
    }
    return row[sent.length]!;
  };
  for (const c of kcells) {
    const heard = c.direction === "agent" ? c.record : c.agent;
    const right = inOrder(heard, ALL_KEYS);
    console.log(
      `| ${what[c.direction]} | ${c.framing} | ${c.line} | ${c.record || "(none)"} | ${
        c.direction === "agent" ? "-" : c.agent || "(none)"
      } | ${right}/16, ${heard.length - right} | ${
        c.direction === "agent" ? "-" : c.record === c.agent ? "yes" : "no"
      } | ${f(median(c.timeErr))} | ${f(Math.max(...c.timeErr.map(Math.abs)))} | ${
        c.ok ? "yes" : `NO${c.error ? ` (${c.error})` : ""}`
      } |`,
    );
  }
}
await tts.close();
