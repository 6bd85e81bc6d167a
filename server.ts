/**
 * The bot server as a Hono app, for mounting on any runtime: `createApp` never
 * listens, and this entry point loads no listening code, so Node can host it with
 * `@hono/node-server` and `@hono/node-ws`:
 *
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { createNodeWebSocket } from "@hono/node-ws";
 * import { Hono } from "hono";
 * import { createApp } from "@callbench/callbench/server";
 *
 * const outer = new Hono();
 * const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app: outer });
 * outer.route("/", createApp({ upgradeWebSocket, factory }));
 * injectWebSocket(serve({ fetch: outer.fetch, port: 8765, hostname: "127.0.0.1" }));
 * ```
 *
 * On Deno, `@callbench/callbench/serve` listens for you.
 *
 * @module
 */
export { createApp, DEFAULT_AGENT, DEFAULT_MAX_SESSIONS } from "./src/server/app.ts";
export { speechErrorSchema } from "./src/speech/speech.ts";
// Types: every one the library names (the app's and sessions' options, speech providers,
// PCM, and what those reach), from mod.ts; types only, so nothing more is loaded.
export type * from "./mod.ts";
