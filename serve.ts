/**
 * The bot server on a Deno socket (`Deno.serve`): loopback by default, a bearer token
 * required on any other address. For Node, mount `createApp` from
 * `@callbench/callbench/server` instead.
 *
 * @example Serve a participant factory on 127.0.0.1:8765
 * ```ts
 * import { serve } from "@callbench/callbench/serve";
 *
 * const server = serve({ hostname: "127.0.0.1", port: 8765, factory });
 * await server.finished;
 * ```
 *
 * @module
 */
export { type RunningServer, serve, type ServeOptions } from "./src/server/serve.ts";
// The types those name: the server's options, sessions and store (as `./server` has them).
export type * from "./server.ts";
