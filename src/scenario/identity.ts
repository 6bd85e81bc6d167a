/**
 * A scenario's identity: a fingerprint of the scenario as loaded (`scenario_sha256`),
 * so a reference printed by `list` from one data root, or a scenario named to a
 * served participant, cannot silently run a different scenario of the same name
 * from another data root (the bundled fixtures reuse real names such as
 * `tau2_retail__0`). The fingerprint covers every field but `source` (where it was
 * read from) and the bytes of the worlds the scenario names, so a different world
 * shows too.
 *
 * @module
 */
import { dbHash, sha256Hex } from "../canonical/hash.ts";
import { InputError, type Problem } from "../problem/problem.ts";
import type { Scenario } from "./scenario.ts";
import { BUNDLED_DATA_ROOT, type DataRoot } from "./data_root.ts";
import { resolve } from "node:path";
import { worldFingerprint } from "./gold_cache.ts";

const cache = new WeakMap<DataRoot, WeakMap<Scenario, string>>();
const worlds = new WeakMap<DataRoot, Map<string, string>>();

/** The canonical hash of the world at `path` in the data root (once per root and path). */
export function initialWorldHash(root: DataRoot, path: string): string {
  let byPath = worlds.get(root);
  if (!byPath) worlds.set(root, byPath = new Map());
  let h = byPath.get(path);
  if (h === undefined) byPath.set(path, h = dbHash(root.db(path)));
  return h;
}

/**
 * The hex SHA-256 of the scenario as `root` holds it, cached: its fields (keys sorted,
 * `source` left out) and the bytes of the worlds it names. The expected hashes a
 * suite derives from its world (tau2 gold replay, eva's expected file) are left out,
 * since they are filled only when a command needs them; the world's bytes stand for
 * them. A file scenario's own expected hashes are its fields and count.
 */
export function scenarioSha256(scenario: Scenario, root: DataRoot): string {
  let byScenario = cache.get(root);
  if (!byScenario) cache.set(root, byScenario = new WeakMap());
  let h = byScenario.get(scenario);
  if (h === undefined) {
    const { source, ...rest } = scenario;
    const fromFile = source?.startsWith("file:") ?? false;
    const expect = fromFile
      ? rest.expect
      : { ...rest.expect, db_sha256: undefined, user_db_sha256: undefined };
    const paths = [scenario.world.db, scenario.world.user_db, scenario.expect.db]
      .flatMap((w) => w && "path" in w ? [w.path] : []);
    const world_bytes = paths.map((p) => [p, worldFingerprint(root, p)]);
    h = sha256Hex(_stable({ ...rest, expect, world_bytes }));
    byScenario.set(scenario, h);
  }
  return h;
}

/** Long strings (prompts shared by every scenario of a suite) encode once. */
const longText = new Map<string, string>();

/** JSON with object keys sorted, so equal scenarios print equally. */
function _stable(v: unknown): string {
  if (typeof v === "string" && v.length > 256) {
    let text = longText.get(v);
    if (text === undefined) {
      if (longText.size > 4096) longText.clear();
      longText.set(v, text = JSON.stringify(v));
    }
    return text;
  }
  if (Array.isArray(v)) return `[${v.map((x) => x === undefined ? "null" : _stable(x)).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const entries = Object.keys(v).sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${_stable((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** How a data root is named to a remote client: never this machine's absolute path. */
export function dataRootLabel(path: string): string {
  if (resolve(path) === resolve(BUNDLED_DATA_ROOT)) return "the bundled fixtures";
  const parts = resolve(path).split(/[\\/]+/).filter(Boolean);
  return parts.length ? `a data root named "${parts[parts.length - 1]}"` : "a data root";
}

/** What a scenario reference (a line of `list`) says about the scenario it names. */
export interface RefIdentity {
  name: string;
  scenario_sha256?: string;
  data_root?: string;
  /** Line on stdin, for the message. */
  line?: number;
}

/**
 * Refuses scenarios that differ from the references they were selected by: the
 * reference was listed from another data root (or the data changed since). Names
 * both roots and how to fix it.
 */
export function checkIdentities(
  refs: readonly RefIdentity[],
  scenarios: readonly Scenario[],
  root: DataRoot,
): void {
  const rootPath = root.path;
  const byName = new Map(scenarios.map((s) => [s.name, s]));
  const problems: Problem[] = [];
  for (const ref of refs) {
    const s = byName.get(ref.name);
    if (!s || ref.scenario_sha256 === undefined) continue;
    const actual = scenarioSha256(s, root);
    if (actual === ref.scenario_sha256) continue;
    const listed = ref.data_root ?? "another data root";
    problems.push({
      file: "<stdin>",
      ...(ref.line !== undefined ? { line: ref.line } : {}),
      where: ref.name,
      field: "scenario_sha256",
      message: ref.data_root !== undefined && resolve(ref.data_root) !== resolve(rootPath)
        ? `listed from the data root ${listed}, but this run's data root ${rootPath} holds a different scenario of that name`
        : `the scenario in the data root ${rootPath} changed since it was listed`,
      hint: ref.data_root !== undefined && resolve(ref.data_root) !== resolve(rootPath)
        ? `use the data root it was listed from: ${listed}`
        : "list it again",
      ...(ref.data_root !== undefined && resolve(ref.data_root) !== resolve(rootPath)
        ? { option: "data_root" as const, code: "scenario_from_other_root" as const, value: listed }
        : {}),
    });
  }
  if (problems.length === 0) return;
  const shown = problems.slice(0, 5);
  if (problems.length > shown.length) {
    shown.push({ message: `... and ${problems.length - shown.length} more like these` });
  }
  throw new InputError(shown);
}
