/**
 * The data root of a command: `--data-root`, else `EVAL_DATA_ROOT`, else the bundled
 * fixtures (the library's `openDataRoot` takes the path; the environment is read here).
 *
 * @module
 */
import { type DataRoot, openDataRoot as openDataRootAt } from "../scenario/data_root.ts";
import { InputError } from "../problem/problem.ts";
import { tau2GoldCache } from "../scenario/tau2/tau2_suite.ts";

/** The environment variable naming the data root when `--data-root` is not given. */
export const DATA_ROOT_ENV = "EVAL_DATA_ROOT";

/**
 * Opens the data root `flag` names, else `EVAL_DATA_ROOT`, else `listed` (the root the
 * scenario references on stdin were listed from), else the bundled fixtures. A missing
 * folder names the path and where it came from.
 */
export function openDataRoot(
  flag: string | undefined,
  io: { env(name: string): string | undefined; err?(line: string): void },
  listed?: string,
): DataRoot {
  // A gold cache entry that is discarded (tampered with, not a file) is said, once each.
  if (io.err) tau2GoldCache.onWarning = (file, message) => io.err!(`warning: ${file}: ${message}`);
  const fromEnv = io.env(DATA_ROOT_ENV);
  try {
    const path = flag ?? (fromEnv || (listed ?? fromEnv));
    const root = openDataRootAt(path);
    if (!path) _bundled.add(root);
    return root;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const via = flag
      ? "--data-root"
      : fromEnv
      ? DATA_ROOT_ENV
      : listed
      ? "the scenario references on stdin"
      : "the bundled fixtures";
    // The path is the location: the problems name no field, as they always did.
    throw new InputError(
      e.problems.map(({ option: _, ...p }) =>
        p.code === "data_root_not_found" ? { ...p, message: `${p.message} (from ${via})` } : p
      ),
    );
  }
}

/** The roots opened as the bundled fixtures because no data root was named. */
const _bundled = new WeakSet<DataRoot>();

/**
 * Says once a root (once a command) on stderr that the bundled fixtures are in use, and how many scenarios of
 * each domain they gave, when `root` is them because no data root was named (`eval`,
 * `list` and `scaffold` would otherwise run a handful of scenarios without a word).
 */
export function sayBundled(
  root: DataRoot,
  scenarios: readonly { domain: string }[],
  io: { err(line: string): void },
): void {
  if (!_bundled.has(root)) return;
  _bundled.delete(root); // once
  const counts = new Map<string, number>();
  for (const s of scenarios) counts.set(s.domain, (counts.get(s.domain) ?? 0) + 1);
  const which = [...counts].map(([d, n]) => `${n} ${d} scenario${n === 1 ? "" : "s"}`).join(", ");
  io.err(
    `using the bundled fixtures${which ? `: ${which}` : ""}; --data-root DIR or ` +
      `${DATA_ROOT_ENV} for the benchmark`,
  );
}
