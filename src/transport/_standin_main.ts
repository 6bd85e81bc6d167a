/**
 * The stand-in bot (`_standin_agent.ts`) in a process of its own, as a real agent
 * is: what benchmarks of many concurrent calls measure then is the caller alone.
 *
 *   deno run --allow-read --allow-net=127.0.0.1 src/transport/_standin_main.ts [OPTIONS_JSON]
 *
 * `OPTIONS_JSON` is a `StandinOptions` object. Once listening it prints one line,
 * `{"url": ..., "twilioUrl": ...}`. Each `stats` line on stdin is answered by one
 * line, `{"sessions": [{framing, messages, chunks, callerTurns, replies}]}` (messages:
 * the RTVI or Twilio types received, audio left out; chunks: caller audio chunks
 * heard). When stdin closes, it closes every call and exits.
 *
 * @module
 */
import { type StandinOptions, startStandin } from "./_standin_agent.ts";

const options = JSON.parse(Deno.args[0] ?? "{}") as StandinOptions;
const standin = startStandin(options);
const encoder = new TextEncoder();
const say = (v: unknown) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(v) + "\n"));
say({ url: standin.url, twilioUrl: standin.twilioUrl });

let buffered = "";
for await (const bytes of Deno.stdin.readable) {
  buffered += new TextDecoder().decode(bytes);
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl).trim();
    buffered = buffered.slice(nl + 1);
    if (line !== "stats") continue;
    say({
      sessions: standin.sessions.map((s) => ({
        framing: s.framing,
        messages: s.messages.filter((m) => m !== "raw-audio"),
        chunks: s.chunks.length,
        callerTurns: s.callerTurns,
        replies: s.replies,
      })),
    });
  }
}
await standin.close();
