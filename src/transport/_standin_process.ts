/**
 * Starts the stand-in bot in a child process (`_standin_main.ts`) and talks to it
 * over its stdin and stdout. Needs the permission to run `deno` (found on PATH).
 *
 * @module
 */
import type { StandinOptions, StandinSession } from "./_standin_agent.ts";

/** What a session of the child saw (counts instead of every chunk). */
export type StandinSessionStats = Pick<StandinSession, "framing" | "messages"> & {
  chunks: number;
  callerTurns: number;
  replies: number;
};

/** A stand-in bot in its own process. */
export interface StandinProcess {
  url: string;
  twilioUrl: string;
  /** The child's process id. */
  pid: number;
  /** What its sessions saw so far, in the order they were opened. */
  stats(): Promise<StandinSessionStats[]>;
  /** Closes its calls and waits for it to exit. */
  close(): Promise<void>;
}

const MAIN = new URL("./_standin_main.ts", import.meta.url);

/** Spawns a stand-in bot process and waits until it listens. */
export async function spawnStandin(options: StandinOptions = {}): Promise<StandinProcess> {
  const child = new Deno.Command("deno", {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-net=127.0.0.1",
      "--allow-env=NODE_ENV",
      MAIN.href,
      JSON.stringify(options),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<string> => {
    while (true) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return line;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the stand-in process ended");
      buffered += value;
    }
  };
  const { url, twilioUrl } = JSON.parse(await nextLine()) as { url: string; twilioUrl: string };
  let asking = Promise.resolve<unknown>(undefined);
  return {
    url,
    twilioUrl,
    pid: child.pid,
    stats() {
      const answer = asking.then(async () => {
        await writer.write(new TextEncoder().encode("stats\n"));
        return (JSON.parse(await nextLine()) as { sessions: StandinSessionStats[] }).sessions;
      });
      asking = answer.catch(() => undefined);
      return answer;
    },
    async close() {
      await writer.close();
      await child.status;
      lines.releaseLock();
    },
  };
}
