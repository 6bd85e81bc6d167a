/**
 * Test helper: the unhandled promise rejections while a function runs.
 *
 * @module
 */

/** Collects every unhandled rejection while `fn` runs (and a few turns after). */
export async function unhandledRejections(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    seen.push(e.reason);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  try {
    await fn();
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  } finally {
    globalThis.removeEventListener("unhandledrejection", onRejection);
  }
  return seen;
}
