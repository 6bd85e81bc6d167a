/**
 * Test helpers: `serve` on a free loopback port hosting the built-in participants
 * over a data root, and the fixture scenarios whose tools must run to reach gold.
 *
 * @module
 */
import { builtinFactory } from "../src/commands/serve.ts";
import type { DataRoot } from "../src/scenario/data_root.ts";
import { openEnvironment } from "../src/scenario/open_environment.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { type RunningServer, serve, type ServeOptions } from "../src/server/serve.ts";

/** `serve` on 127.0.0.1, a free port, `builtinFactory(root)` and `root`; `options` override. */
export function serveBuiltin(
  root: DataRoot,
  options: Partial<ServeOptions> = {},
): Promise<RunningServer> {
  return serve({
    hostname: "127.0.0.1",
    port: 0,
    factory: builtinFactory(root),
    dataRoot: root,
    ...options,
  });
}

/** Up to `most` scenarios of `domain` whose expected state differs from the initial one. */
export async function changingScenarios(
  root: DataRoot,
  domain: string,
  most: number,
): Promise<Scenario[]> {
  const picked: Scenario[] = [];
  const sel = await selectScenarios(root, { domains: [domain] });
  for (const s of sel.scenarios.filter((s) => s.expect.db_sha256)) {
    if (picked.length >= most) break;
    const initial = (await openEnvironment(root, s, "0")).env.hashes().db_sha256;
    if (initial !== s.expect.db_sha256) picked.push(s);
  }
  return picked;
}
