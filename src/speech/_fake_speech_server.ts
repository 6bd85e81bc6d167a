/**
 * A fake OpenAI-compatible speech server on 127.0.0.1 for the provider tests: each
 * request to `/v1/audio/speech` or `/v1/audio/transcriptions` is recorded and answered
 * by the test's `answer` function.
 *
 * @module
 */

/** A request as the fake saw it. */
export interface SeenRequest {
  path: string;
  headers: Headers;
  json?: Record<string, unknown>;
  form?: FormData;
}

/** Starts the fake; `await using` closes it. */
export function startFakeSpeechServer(
  answer: (req: SeenRequest) => Response | Promise<Response>,
) {
  const requests: SeenRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const seen: SeenRequest = { path, headers: req.headers };
    const type = req.headers.get("content-type") ?? "";
    if (type.startsWith("application/json")) seen.json = await req.json();
    else if (type.startsWith("multipart/form-data")) seen.form = await req.formData();
    requests.push(seen);
    return await answer(seen);
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
