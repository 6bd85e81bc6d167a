/** Spawns `cli.ts` with the task's permissions, feeding stdin; returns code and output. */
export const PERMS = [
  "--allow-read",
  "--allow-write",
  "--allow-net=127.0.0.1",
  "--allow-env=NODE_ENV,EVAL_DATA_ROOT,LOG_TOKENS,LOG_STREAM,OPENAI_BASE_URL,OPENAI_API_KEY,CALLBENCH_AGENT_MODEL,CALLBENCH_USER_MODEL,WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE",
];

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
