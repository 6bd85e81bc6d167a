/**
 * Twilio Media Streams mapping (next step; not implemented in this commit).
 *
 * @module
 */
import type { WireMapping } from "./mapping.ts";

/** The Twilio mapping (`--framing twilio`). */
export const twilioMapping: WireMapping = () => {
  throw new Error("--framing twilio is not implemented yet");
};
