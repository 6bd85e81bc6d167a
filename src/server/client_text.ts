/**
 * Text a bot server sends a client in an error: the server's own paths (its data
 * root, its working folder, its code) are replaced by placeholders, and the length is
 * bounded, so an error can neither map the server's disk nor echo a huge input back.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { DataRoot } from "../scenario/data_root.ts";

/** Longest error text sent to a client; the rest is counted, not sent. */
export const MAX_CLIENT_ERROR_CHARS = 2_000;

const CODE_ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/[\\/]$/, "");

/** `text` with this server's paths replaced and its length bounded. */
export function clientText(text: string, root?: Pick<DataRoot, "path" | "realPath">): string {
  let out = text;
  for (const [path, name] of serverPaths(root)) out = out.replaceAll(path, name);
  if (out.length <= MAX_CLIENT_ERROR_CHARS) return out;
  const cut = out.length - MAX_CLIENT_ERROR_CHARS;
  return `${out.slice(0, MAX_CLIENT_ERROR_CHARS)}… (${cut} more characters)`;
}

/** Paths to hide, longest first (a data root inside the working folder is named as such). */
function serverPaths(root?: Pick<DataRoot, "path" | "realPath">): [string, string][] {
  const paths: [string, string][] = [];
  const add = (path: string | undefined, name: string) => {
    const trimmed = path?.replace(/[\\/]+$/, "");
    if (trimmed && trimmed.length > 1) paths.push([trimmed, name]);
  };
  if (root) {
    add(root.path, "<data root>");
    add(root.realPath, "<data root>");
  }
  add(CODE_ROOT, "<server>");
  try {
    add(Deno.cwd(), "<server>");
  } catch { /* no read permission: nothing to hide */ }
  return paths.sort((a, b) => b[0].length - a[0].length);
}
