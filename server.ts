/**
 * The bot server as a Hono app, for mounting on any runtime: `createApp` never
 * listens, and this entry point loads no `Deno.serve` code, so Node can host it with
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
export {
  type AppAudio,
  type AppOptions,
  createApp,
  DEFAULT_AGENT,
  DEFAULT_MAX_SESSIONS,
} from "./src/server/app.ts";
export type { HostedParticipantFactory } from "./src/server/session.ts";
export type { Session, SessionOptions, SessionSocket } from "./src/server/session.ts";
export type { SessionStore, SessionStoreOptions } from "./src/server/session_store.ts";
export type { Framing } from "./src/protocol/framing.ts";
export type { SessionAudioOptions } from "./src/server/session_audio.ts";
export {
  type SpeechError,
  speechErrorSchema,
  type SpeechProviderInfo,
  type SttProvider,
  type SttRequest,
  type SttResult,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./src/speech/speech.ts";
export type { Pcm16 } from "./src/audio/pcm.ts";
// Every type the library names, for the types the options above reach (types only:
// nothing more is loaded).
export type * from "./mod.ts";
