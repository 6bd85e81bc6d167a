/**
 * Test helpers: the promise rejections nobody handled, and the errors nobody caught,
 * while a function runs.
 *
 * @module
 */

/** Collects every unhandled rejection while `fn` runs (and a few turns after). */
export function unhandledRejections(fn: () => Promise<void>): Promise<unknown[]> {
  return collect("unhandledrejection", (e: PromiseRejectionEvent) => e.reason, fn);
}

/** Collects every uncaught error (an `error` event) while `fn` runs (and a few turns after). */
export function uncaughtErrors(fn: () => Promise<void>): Promise<unknown[]> {
  return collect("error", (e: ErrorEvent) => e.error, fn);
}

async function collect<E extends Event>(
  type: "unhandledrejection" | "error",
  what: (e: E) => unknown,
  fn: () => Promise<void>,
): Promise<unknown[]> {
  const seen: unknown[] = [];
  const on = (e: Event) => {
    e.preventDefault();
    seen.push(what(e as E));
  };
  globalThis.addEventListener(type, on);
  try {
    await fn();
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  } finally {
    globalThis.removeEventListener(type, on);
  }
  return seen;
}
