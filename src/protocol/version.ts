/**
 * The client-ready version check: same major as ours is current, major 1 is served
 * in legacy form, anything else (or no version) gets an error-response and the
 * session carries on, as pipecat does.
 *
 * @module
 */
import { PROTOCOL_VERSION } from "./messages.ts";

export type VersionCheck =
  | { ok: true; legacy: boolean; version: string }
  | { ok: false; error: string };

const OUR_MAJOR = Number(PROTOCOL_VERSION.split(".")[0]);
const LEGACY_MAJOR = 1;

/** Checks a client's `client-ready` version against ours. */
export function checkClientVersion(version: unknown): VersionCheck {
  if (typeof version !== "string" || version === "") {
    return { ok: false, error: "Client version unknown. Compatibility issues may occur." };
  }
  const parts = version.split(".");
  if (parts.length !== 3 || !parts.every((p) => /^\d+$/.test(p))) {
    return {
      ok: false,
      error: `Invalid client version format (${version}). Compatibility issues may occur.`,
    };
  }
  const major = Number(parts[0]);
  if (major === OUR_MAJOR) return { ok: true, legacy: false, version };
  if (major === LEGACY_MAJOR) return { ok: true, legacy: true, version };
  return {
    ok: false,
    error: `RTVI version ${version} is not compatible with server protocol ${PROTOCOL_VERSION}.` +
      " Compatibility issues may occur.",
  };
}
