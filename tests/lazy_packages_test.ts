/**
 * What a run downloads is what its command loads: the packages reached from the command's
 * module by static imports (type-only imports and dynamic `import()` left out, as the
 * runtime loads them; `cli.ts` loads each command with `import()`). The OpenAI client
 * and the MCP SDK (tens of MB) must be reached by none: they come down only when a run
 * needs them (`--tools-server`, a realtime model).
 *
 * Permissions: `--allow-read --allow-run` (runs `deno info --json`).
 */
import assert from "node:assert/strict";

interface Dep {
  specifier: string;
  isDynamic?: boolean;
  code?: { specifier: string };
}
interface Info {
  roots: string[];
  modules: { specifier: string; dependencies?: Dep[] }[];
  redirects: Record<string, string>;
}

/** The npm packages `file`'s static imports reach. */
async function staticPackages(file: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", file],
    cwd: new URL("..", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (spec: string) => {
    const s = info.redirects[spec] ?? spec;
    if (seen.has(s)) return;
    seen.add(s);
    if (s.startsWith("npm:")) {
      packages.add(s.replace(/^npm:\/?/, "").replace(/(?<=.)@[^/]*.*$/, ""));
    }
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if (!d.isDynamic && d.code) visit(d.code.specifier);
    }
  };
  for (const r of info.roots) visit(r);
  return packages;
}

Deno.test("no command's static imports reach the OpenAI client or the MCP SDK (loaded only when needed)", async () => {
  const commands = [...Deno.readDirSync(new URL("../src/commands/", import.meta.url))]
    .map((e) => e.name).filter((n) => n.endsWith(".ts") && !n.endsWith("_test.ts")).sort();
  assert.ok(commands.includes("demo.ts") && commands.includes("eval.ts"));
  for (const c of commands) {
    const packages = await staticPackages(`src/commands/${c}`);
    if (c === "demo.ts" || c === "eval.ts") console.log(`${c}: ${[...packages].sort().join(", ")}`);
    for (const p of packages) {
      assert.ok(!/^openai$|^@modelcontextprotocol\//.test(p), `${c} loads ${p} up front`);
    }
  }
  // The check sees packages at all: eval's own are there.
  assert.ok((await staticPackages("src/commands/eval.ts")).has("zod"));
});
