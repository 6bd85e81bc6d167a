/**
 * A process's resident memory, sampled with `ps` while it runs (Deno lets only
 * --allow-all read /proc): for the memory tests and `bench:abuse`.
 *
 * @module
 */

/** Samples `pid`'s RSS every `everyMs` until `stop()`; `stop` resolves with the peak and first, MB. */
export function sampleRss(
  pid: number,
  everyMs = 100,
): { stop(): Promise<{ peakMb: number; firstMb: number; samples: number }> } {
  let done = false;
  const seen: number[] = [];
  const loop = (async () => {
    while (!done) {
      const ps = await new Deno.Command("ps", {
        args: ["-o", "rss=", "-p", String(pid)],
        stdout: "piped",
        stderr: "null",
      }).output();
      const kb = Number(new TextDecoder().decode(ps.stdout).trim() || NaN);
      if (Number.isFinite(kb)) seen.push(kb / 1024);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      done = true;
      await loop;
      return { peakMb: Math.max(0, ...seen), firstMb: seen[0] ?? 0, samples: seen.length };
    },
  };
}
