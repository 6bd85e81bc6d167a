/**
 * Test helper: a page in headless Chromium, as the browser laid it out. `dumpDom` runs
 * the page's scripts and returns the DOM; `layoutOf` also measures element boxes after
 * layout (a probe script appended to the page writes them into the DOM); `screenshot`
 * takes a PNG of the window and `decodePng` reads its pixels back, so a test can check
 * that what the boxes say is also what was drawn.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); `chromiumPresent` says whether
 * it is there. Permissions: `--allow-read --allow-write --allow-run=/usr/bin/chromium`.
 *
 * @module
 */
import { ok } from "node:assert/strict";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether the browser is installed. */
export async function chromiumPresent(): Promise<boolean> {
  try {
    return (await Deno.stat(CHROMIUM)).isFile;
  } catch {
    return false;
  }
}

/** A browser window: its size and a fresh profile folder. */
export interface Window {
  width: number;
  height: number;
  profile: string;
}

/** Runs headless Chromium on `url` in `window` with `args`; stdout and exit code. */
export async function chromium(
  window: Window,
  args: string[],
): Promise<{ stdout: string; code: number }> {
  const { code, stdout } = await new Deno.Command(CHROMIUM, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--force-device-scale-factor=1",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${window.profile}`,
      `--window-size=${window.width},${window.height}`,
      ...args,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}

/** The DOM of the page at `file` once its scripts ran. */
export async function dumpDom(window: Window, file: string): Promise<string> {
  const { code, stdout } = await chromium(window, ["--dump-dom", `file://${file}`]);
  ok(code === 0, `chromium --dump-dom exited ${code}`);
  return stdout;
}

/** An element's box after layout, in CSS pixels from the page's top left. */
export interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}

/** What `layoutOf` measured. */
export interface Layout {
  /** The viewport's width without scrollbars. */
  viewport: number;
  /** The page's full width: more than `viewport` means it scrolls sideways. */
  scroll_width: number;
  /** One list of boxes per selector, in document order. */
  boxes: Record<string, Box[]>;
}

/**
 * Lays out `html` in `window` and measures the elements each selector matches. The probe
 * runs as the page's last script, after the page's own, and forces layout to measure.
 */
export async function layoutOf(
  window: Window,
  html: string,
  file: string,
  selectors: readonly string[],
): Promise<Layout> {
  const probe = `<script>(() => {
    const boxes = {};
    for (const sel of ${JSON.stringify(selectors)}) {
      boxes[sel] = [...document.querySelectorAll(sel)].map((e) => {
        const r = e.getBoundingClientRect();
        return { text: e.textContent, left: r.left + scrollX, right: r.right + scrollX,
          top: r.top + scrollY, bottom: r.bottom + scrollY, width: r.width, height: r.height };
      });
    }
    const out = { viewport: document.documentElement.clientWidth,
      scroll_width: document.documentElement.scrollWidth, boxes };
    const pre = document.createElement("pre");
    pre.id = "layout-probe";
    pre.textContent = btoa(unescape(encodeURIComponent(JSON.stringify(out))));
    document.body.append(pre);
  })();</script>`;
  ok(html.includes("</body>"), "the page has a </body>");
  await Deno.writeTextFile(file, html.replace("</body>", `${probe}</body>`));
  const dom = await dumpDom(window, file);
  const m = dom.match(/<pre id="layout-probe">([A-Za-z0-9+/=]+)<\/pre>/);
  ok(m, "the layout probe did not run");
  const bytes = Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes)) as Layout;
}

/** A PNG of the window showing the page at `file`. */
export async function screenshot(window: Window, file: string, png: string): Promise<Uint8Array> {
  const { code } = await chromium(window, [`--screenshot=${png}`, `file://${file}`]);
  ok(code === 0, `chromium --screenshot exited ${code}`);
  return await Deno.readFile(png);
}

/** Decoded pixels: RGBA, row by row. */
export interface Image {
  width: number;
  height: number;
  rgba: Uint8Array;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes). */
export async function decodePng(bytes: Uint8Array): Promise<Image> {
  ok(PNG_SIGNATURE.every((b, i) => bytes[i] === b), "not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0, height = 0, channels = 0;
  const idat: Uint8Array[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const depth = data[8], color = data[9], interlace = data[12];
      ok(depth === 8 && (color === 2 || color === 6) && interlace === 0, "unsupported PNG");
      channels = color === 6 ? 4 : 3;
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
    at += 12 + length;
  }
  const inflated = new Uint8Array(
    await new Response(
      new Blob(idat as BlobPart[]).stream().pipeThrough(new DecompressionStream("deflate")),
    ).arrayBuffer(),
  );
  const stride = width * channels;
  ok(inflated.length === height * (stride + 1), "truncated PNG data");
  const raw = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = inflated[y * (stride + 1)]!;
    const line = inflated.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = raw.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? raw.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      let p: number;
      if (filter === 0) p = 0;
      else if (filter === 1) p = a;
      else if (filter === 2) p = b;
      else if (filter === 3) p = (a + b) >> 1;
      else {
        const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
        p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = (line[x]! + p) & 0xff;
    }
  }
  if (channels === 4) return { width, height, rgba: raw };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < raw.length; i += 3, j += 4) {
    rgba[j] = raw[i]!;
    rgba[j + 1] = raw[i + 1]!;
    rgba[j + 2] = raw[i + 2]!;
    rgba[j + 3] = 255;
  }
  return { width, height, rgba };
}

/** Pixels inside a box (clipped to the image) darker than `threshold` on every channel. */
export function darkPixels(
  image: Image,
  box: Pick<Box, "left" | "right" | "top" | "bottom">,
  threshold = 160,
): number {
  let n = 0;
  const x0 = Math.max(0, Math.floor(box.left)), x1 = Math.min(image.width, Math.ceil(box.right));
  const y0 = Math.max(0, Math.floor(box.top)), y1 = Math.min(image.height, Math.ceil(box.bottom));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 4;
      if (
        image.rgba[i]! < threshold && image.rgba[i + 1]! < threshold &&
        image.rgba[i + 2]! < threshold
      ) n++;
    }
  }
  return n;
}
