import { taskFlags } from "./_tasks.ts";

/** Exactly the `cli` task's flags (deno.json), so tests hold what users run. */
export const PERMS = taskFlags("cli");

/** What a spawned command printed, and how it exited. */
export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` with `args`, feeding `stdin` (none: stdin is closed) while its
 * output is read (a large input would otherwise fill the pipes and deadlock).
 * Rejects with `Deno.errors.NotFound` when there is no such command.
 */
export async function spawnCapture(
  command: string,
  args: string[],
  options: { stdin?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<Captured> {
  const child = new Deno.Command(command, {
    args,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();
  const writing = options.stdin === undefined ? Promise.resolve() : (async () => {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  })();
  const [out] = await Promise.all([child.output(), writing]);
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Spawns `cli.ts` with the `cli` task's permissions, feeding stdin; returns code and output. */
export function cli(
  args: string[],
  stdin = "",
  env: Record<string, string> = {},
): Promise<Captured> {
  return spawnCapture(Deno.execPath(), ["run", ...PERMS, "cli.ts", ...args], { stdin, env });
}
