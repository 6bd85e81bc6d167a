/**
 * Prints the frames of one real eva call on the wire (PROTOCOL.md's worked
 * transcript): the served oracle, reached through a recording proxy by `eval`'s RTVI
 * client with the scripted caller, in JSON framing. Long strings are cut with an
 * explicit `…[N more chars]` note.
 *
 * Usage: deno run --allow-read --allow-net=127.0.0.1 --allow-env scripts/wire_transcript.ts [SCENARIO]
 *
 * @module
 */
import { recordOracleCall } from "../tests/_wire_recorder.ts";

const name = Deno.args[0] ?? "eva_airline__1_4_1";
const { record, frames } = await recordOracleCall(name, { label: "transcript" });

const MAX = 160;
const cut = (v: unknown): unknown => {
  if (typeof v === "string") {
    return v.length > MAX ? `${v.slice(0, MAX)}…[${v.length - MAX} more chars]` : v;
  }
  if (Array.isArray(v)) return v.map(cut);
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)]));
  }
  return v;
};
for (const f of frames) {
  console.log(`${f.from === "client" ? "→" : "←"} ${JSON.stringify(cut(f.message))}`);
}
console.error(
  `# ${name}: ${record.status}, stop_reason ${record.stop_reason}, ${record.turns.length} turns, ` +
    `db ${record.final.db_sha256 === record.expect.db_sha256 ? "matches" : "differs from"} gold`,
);
