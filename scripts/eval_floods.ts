/**
 * eval under each flood of `tests/_flood_agents.ts`: one `cli.ts eval --trials 3` per
 * flood against a flooding agent on loopback, its RSS sampled, one Markdown row each.
 * `bench:abuse` runs some of these floods through {@link runEvalFlood} too.
 *
 *     deno run --allow-read --allow-write --allow-net=127.0.0.1 --allow-run --allow-env \
 *       scripts/eval_floods.ts [name prefix]
 *
 * @module
 */
import {
  type EvalMeasure,
  type FloodAgent,
  measureEval,
  rtviFloodAgent,
  twilioFloodAgent,
} from "../tests/_flood_agents.ts";

/** One flood: its name, the agent that floods, and the `eval` flags it needs. */
export interface EvalFlood {
  name: string;
  agent: () => FloodAgent;
  args: string[];
}

export const EVAL_FLOODS: EvalFlood[] = [
  { name: "segments", agent: () => rtviFloodAgent("segments"), args: [] },
  {
    name: "segments (empty text, fragments)",
    agent: () => rtviFloodAgent("segments", { text: "" }),
    args: [],
  },
  { name: "llm_text", agent: () => rtviFloodAgent("llm_text"), args: [] },
  { name: "tts_text", agent: () => rtviFloodAgent("tts_text"), args: [] },
  { name: "traces", agent: () => rtviFloodAgent("traces"), args: [] },
  {
    name: "tool_calls 900 KB",
    agent: () => rtviFloodAgent("tool_calls", { tool: "get_user_details" }),
    args: [],
  },
  { name: "audio 100 ms frames", agent: () => rtviFloodAgent("audio"), args: ["--audio"] },
  {
    name: "twilio media",
    agent: () => twilioFloodAgent("media"),
    args: ["--audio", "--framing", "twilio"],
  },
  {
    name: "twilio marks",
    agent: () => twilioFloodAgent("marks"),
    args: ["--audio", "--framing", "twilio"],
  },
];

/** The trials of a flood run, as `trials.jsonl` has them (the fields read here). */
export interface FloodTrial {
  status: string;
  error?: { kind?: string; message?: string };
}

/** What one flood run did: the process's measures, its records, the frames the agent sent. */
export interface EvalFloodRun {
  measure: EvalMeasure;
  records: FloodTrial[];
  sent: number;
}

/** Trials per flood run. */
export const TRIALS = 3;

/** Runs `eval` against `flood`'s agent, `TRIALS` trials of one scenario, in a scratch folder. */
export async function runEvalFlood(flood: EvalFlood): Promise<EvalFloodRun> {
  const agent = flood.agent();
  const dir = await Deno.makeTempDir({ prefix: "callbench-floods-" });
  let measure: EvalMeasure;
  let records: FloodTrial[];
  try {
    measure = await measureEval(agent, [
      "--scenarios",
      "eva_airline__1_4_1",
      ...flood.args,
      "--trials",
      String(TRIALS),
      "--out",
      dir,
    ]);
    records = (await Deno.readTextFile(`${dir}/trials.jsonl`).catch(() => ""))
      .split("\n").filter(Boolean).map((l) => JSON.parse(l) as FloodTrial);
  } finally {
    await agent.close();
    await Deno.remove(dir, { recursive: true });
  }
  return { measure, records, sent: agent.sent };
}

/** A record's outcome: its error kind, else its status. */
export const outcome = (r: FloodTrial) => r.error?.kind ?? r.status;

if (import.meta.main) {
  const only = Deno.args[0];
  console.log(
    "| flood | exit | records | kinds | RSS at flood MB | peak MB | growth MB | wall ms | frames sent | error |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const flood of EVAL_FLOODS) {
    if (only && !flood.name.startsWith(only)) continue;
    const { measure: m, records, sent } = await runEvalFlood(flood);
    const kinds = records.map(outcome).join(",");
    const msg = records[0]?.error?.message?.replace(/ws:\/\/[^ ]+/, "ws://…") ?? "";
    console.log(
      `| ${flood.name} | ${m.code} | ${records.length} | ${kinds} | ${m.rssAtFloodMb} | ${m.peakRssMb} | ${
        m.peakRssMb - m.rssAtFloodMb
      } | ${m.wallMs} | ${sent} | ${msg.slice(0, 90)} |`,
    );
  }
}
