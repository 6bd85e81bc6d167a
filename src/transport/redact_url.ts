/**
 * An agent's URL as records, transcripts and messages show it: no user name or
 * password, and no value of a query parameter named like a secret. The URL that is
 * dialled keeps them; nothing that is written down does.
 *
 * @module
 */

/** Query parameters whose values are never shown (matched in their name, any case). */
const SECRET_PARAM = /key|token|secret|passw|pwd|auth|signature|sig$|credential|session_?id/i;

/** What a redacted part is replaced with. */
const REDACTED = "***";

/**
 * `url` with its userinfo and the values of secret-like query parameters replaced
 * by `***`; the parameter names stay, so a reader sees that one was given. A URL
 * with nothing to hide, and a text that is not a URL (a participant kind such as
 * `oracle`), come back as they are.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!/^(wss?|https?|sips?):$/.test(u.protocol)) return url;
  const params = [...u.searchParams];
  const secretParams = params.some(([k]) => SECRET_PARAM.test(k));
  if (!u.username && !u.password && !secretParams) return url; // as given, byte for byte
  if (u.username || u.password) {
    u.username = REDACTED;
    u.password = "";
  }
  if (secretParams) {
    u.search = new URLSearchParams(
      params.map(([k, v]) => [k, SECRET_PARAM.test(k) ? REDACTED : v]),
    ).toString();
  }
  return u.toString();
}
