/**
 * `serve` as a process (`deno run … cli.ts serve …` or `deno task serve …`): spawned,
 * its stderr read up to its "listening on" line, then drained to its end so it never
 * blocks on a full pipe. For the tests and the scripts that talk to a real server.
 *
 * @module
 */

const LISTENING = /listening on (ws:\/\/\S+)/;

/** A spawned `serve` and what it printed. */
export interface ServeProcess {
  child: Deno.ChildProcess;
  /** The URL of its "listening on" line; undefined if it ended before listening. */
  url: string | undefined;
  /** Its stderr up to and with that line (all of it if it ended before listening). */
  seen: string;
  /** Its stderr lines, every one once it has exited. */
  stderr: Promise<string[]>;
  /** Its stdout once it has exited ("" unless `stdout: "piped"`). */
  stdout: Promise<string>;
  /**
   * Stops reading its stderr (`stderr` then settles with what was read): for a
   * `deno task`, whose own children may hold the pipe open after it exited.
   */
  cancel(): Promise<void>;
}

/** Spawns `deno ...args` and waits for the URL it prints on stderr. */
export async function spawnServe(
  args: string[],
  options: { cwd?: string | URL; env?: Record<string, string>; stdout?: "piped" | "null" } = {},
): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: options.cwd,
    stdin: "null",
    stdout: options.stdout ?? "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
    // Whole lines only: a chunk may end inside the URL.
    const lines = seen.split("\n").slice(0, -1);
    url = lines.map((l) => LISTENING.exec(l)?.[1]).find(Boolean);
  }
  const stderr = (async () => {
    let rest = "";
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += value;
    }
    return (seen + rest).split("\n").filter(Boolean);
  })();
  const stdout = options.stdout === "piped"
    ? new Response(child.stdout).text()
    : Promise.resolve("");
  return { child, url, seen, stderr, stdout, cancel: () => reader.cancel() };
}
