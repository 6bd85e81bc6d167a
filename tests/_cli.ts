import { taskFlags } from "./_tasks.ts";

/** Exactly the `cli` task's flags (deno.json), so tests hold what users run. */
const PERMS = taskFlags("cli");

/** Spawns `cli.ts` with the `cli` task's permissions, feeding stdin; returns code and output. */
export async function cli(args: string[], stdin = "", env: Record<string, string> = {}) {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  });
  const child = cmd.spawn();
  // Write stdin while the output is read: a large input would otherwise fill the
  // pipes and deadlock.
  const writing = (async () => {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  })();
  const [out] = await Promise.all([child.output(), writing]);
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
