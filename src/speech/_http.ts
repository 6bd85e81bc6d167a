/**
 * What the OpenAI-compatible speech providers share: the endpoint URL, headers, a
 * timeout joined to the caller's signal, and one line describing a failed response.
 *
 * @module
 */

/** `<base>/<path>` unless the base URL already ends with the path. */
export function endpointUrl(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith(`/${path}`) ? base : `${base}/${path}`;
}

/** Aborts on the caller's signal or after `timeoutMs`. */
export function requestSignal(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/** A short description of an HTTP error response (the server's message when it gave one). */
export async function describeFailure(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  let detail = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string };
    const message = typeof body.error === "string" ? body.error : body.error?.message;
    if (typeof message === "string") detail = message;
  } catch {
    // Not JSON: keep the start of the text.
  }
  return `HTTP ${response.status}${detail ? `: ${detail.replace(/\s+/g, " ").trim()}` : ""}`;
}

/** Why a fetch threw, in one line. */
export function describeThrown(e: unknown, url: string, timeoutMs: number): string {
  const err = e as Error;
  if (err?.name === "TimeoutError") return `No answer from ${url} within ${timeoutMs} ms`;
  if (err?.name === "AbortError") return `The request to ${url} was aborted`;
  return `Cannot reach ${url}: ${err?.message ?? String(e)}`;
}
