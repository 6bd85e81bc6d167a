/**
 * eval under each flood of `tests/_flood_agents.ts`: one `cli.ts eval --trials 3` per
 * flood against a flooding agent on loopback, its RSS sampled, one Markdown row each.
 *
 *     deno run --allow-read --allow-write --allow-net=127.0.0.1 --allow-run --allow-env \
 *       scripts/eval_floods.ts [name prefix]
 *
 * @module
 */
import {
  type FloodAgent,
  measureEval,
  rtviFloodAgent,
  twilioFloodAgent,
} from "../tests/_flood_agents.ts";
const scen = ["--scenarios", "eva_airline__1_4_1"];
const runs: [string, () => FloodAgent, string[]][] = [
  ["segments", () => rtviFloodAgent("segments"), []],
  ["segments (empty text, fragments)", () => rtviFloodAgent("segments", { text: "" }), []],
  ["llm_text", () => rtviFloodAgent("llm_text"), []],
  ["tts_text", () => rtviFloodAgent("tts_text"), []],
  ["traces", () => rtviFloodAgent("traces"), []],
  ["tool_calls 900 KB", () => rtviFloodAgent("tool_calls", { tool: "get_user_details" }), []],
  ["audio 100 ms frames", () => rtviFloodAgent("audio"), ["--audio"]],
  ["twilio media", () => twilioFloodAgent("media"), ["--audio", "--framing", "twilio"]],
  ["twilio marks", () => twilioFloodAgent("marks"), ["--audio", "--framing", "twilio"]],
];
const only = Deno.args[0];
console.log(
  "| flood | exit | records | kinds | RSS at flood MB | peak MB | growth MB | wall ms | frames sent | error |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const [name, make, extra] of runs) {
  if (only && !name.startsWith(only)) continue;
  const agent = make();
  const dir = await Deno.makeTempDir();
  const m = await measureEval(agent, [...scen, ...extra, "--trials", "3", "--out", dir]);
  await agent.close();
  const lines = (await Deno.readTextFile(`${dir}/trials.jsonl`).catch(() => "")).trim().split("\n")
    .filter(Boolean).map((l) => JSON.parse(l));
  const kinds = lines.map((r) => r.error?.kind ?? r.status).join(",");
  const msg = lines[0]?.error?.message?.replace(/ws:\/\/[^ ]+/, "ws://…") ?? "";
  console.log(
    `| ${name} | ${m.code} | ${lines.length} | ${kinds} | ${m.rssAtFloodMb} | ${m.peakRssMb} | ${
      m.peakRssMb - m.rssAtFloodMb
    } | ${m.wallMs} | ${agent.sent} | ${msg.slice(0, 90)} |`,
  );
  await Deno.remove(dir, { recursive: true });
}
