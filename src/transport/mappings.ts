/**
 * Each framing's mapping, loaded on first use. Apart from `./mapping.ts`, whose types and
 * helpers the mapping files import: the table imports them, so no file imports back.
 *
 * @module
 */
import type { WireFraming, WireMapping } from "./mapping.ts";

/** Each framing's mapping, loaded on first use. */
export const MAPPINGS: Record<WireFraming, () => Promise<WireMapping>> = {
  json: async () => (await import("./rtvi.ts")).rtviMapping,
  protobuf: async () => (await import("./rtvi.ts")).rtviMapping,
  twilio: async () => (await import("./twilio.ts")).twilioMapping,
  "openai-realtime": async () => (await import("./openai_realtime.ts")).realtimeMapping,
};
