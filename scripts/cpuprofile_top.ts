/**
 * The functions with the most self time in a V8 `.cpuprofile` (as written by
 * `deno run --cpu-prof`), and the modules with the most self time.
 *
 *   deno run --allow-read scripts/cpuprofile_top.ts FILE.cpuprofile [N]
 *
 * @module
 */
import { z } from "zod";

const ProfileSchema = z.object({
  nodes: z.array(z.object({
    id: z.number(),
    callFrame: z.object({
      functionName: z.string(),
      url: z.string(),
      lineNumber: z.number(),
    }),
    children: z.array(z.number()).optional(),
  })),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

/** Self milliseconds per function and per module of a profile, most first. */
export function topSelf(
  profile: z.infer<typeof ProfileSchema>,
): { total: number; functions: [string, number][]; modules: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const mod = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    const f = byId.get(id)!.callFrame;
    const url = f.url.replace(/^.*\/(node_modules|src|scripts)\//, "$1/");
    const name = `${f.functionName || "(anonymous)"} ${url}:${f.lineNumber + 1}`;
    fn.set(name, (fn.get(name) ?? 0) + ms);
    const m = url || `(${f.functionName})`;
    mod.set(m, (mod.get(m) ?? 0) + ms);
  });
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { total, functions: top(fn), modules: top(mod) };
}

if (import.meta.main) {
  const [file, n = "25"] = Deno.args;
  if (!file) throw new Error("usage: cpuprofile_top.ts FILE.cpuprofile [N]");
  const { total, functions, modules } = topSelf(
    ProfileSchema.parse(JSON.parse(Deno.readTextFileSync(file))),
  );
  const show = (rows: [string, number][]) =>
    rows.slice(0, Number(n)).forEach(([k, ms]) =>
      console.log(
        `${ms.toFixed(1).padStart(9)} ms ${(100 * ms / total).toFixed(1).padStart(5)}%  ${k}`,
      )
    );
  console.log(`total ${total.toFixed(0)} ms\n-- functions (self)`);
  show(functions);
  console.log("-- modules (self)");
  show(modules);
}
