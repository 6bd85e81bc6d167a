/**
 * baresip (the Debian package) as a real SIP peer for tests, on loopback only: a config
 * folder made in a temp dir (UDP on a free port, bound to 127.0.0.1, no registration,
 * auto-answer, PCMU/PCMA), its audio source a WAV file (`aufile`), its player a sink
 * (`aubridge`) behind the `sndfile` filter, which records what it decoded from us
 * (`dump-*-dec.wav`) and what it encoded for us (`dump-*-enc.wav`).
 *
 * @module
 */
import dgram from "node:dgram";
import { join } from "node:path";
import { encodeWav } from "../src/audio/wav.ts";

/** The command, found on PATH. */
export const BARESIP = "baresip";
/** Where the Debian package (and a source install) put the modules. */
const MODULE_DIRS = ["/usr/lib/baresip/modules", "/usr/local/lib/baresip/modules"];
const NEEDED = ["g711", "aufile", "aubridge", "sndfile", "account"];

function moduleDir(): string | undefined {
  return MODULE_DIRS.find((dir) => {
    try {
      for (const m of NEEDED) Deno.statSync(join(dir, `${m}.so`));
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether baresip and the modules the tests use are installed. */
export function baresipInstalled(): boolean {
  if (!moduleDir()) return false;
  try {
    new Deno.Command(BARESIP, { args: ["-h"], stdout: "null", stderr: "null" }).outputSync();
    return true;
  } catch {
    return false;
  }
}

async function udpFree(port: number): Promise<boolean> {
  const s = dgram.createSocket("udp4");
  try {
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.bind(port, "127.0.0.1", () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    try {
      s.close();
    } catch { /* not bound */ }
  }
}

function tcpFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

/** A port whose UDP and TCP (SIP) and next TCP port (baresip's TLS) are free. */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 30000) * 2;
    if (tcpFree(p) && tcpFree(p + 1) && await udpFree(p)) return p;
  }
  throw new Error("no free port pair for baresip");
}

export interface Baresip {
  uri: string;
  dir: string;
  /** baresip's output so far. */
  log(): string;
  /** What baresip decoded from us and encoded for us (PCM16 WAV bytes), once the call ended. */
  recordings(): { decoded?: Uint8Array; encoded?: Uint8Array };
  stop(): Promise<void>;
}

/** Starts baresip with `source` (PCM16 mono 8 kHz) as its audio; resolves once it is ready. */
export async function startBaresip(source: Int16Array): Promise<Baresip> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-baresip-" });
  const port = await freePort();
  await Deno.mkdir(join(dir, "rec"));
  await Deno.writeFile(
    join(dir, "source.wav"),
    encodeWav({ samples: source, sampleRate: 8000, channels: 1 }),
  );
  await Deno.writeTextFile(
    join(dir, "config"),
    [
      "poll_method poll",
      `sip_listen 127.0.0.1:${port}`,
      "net_interface 127.0.0.1",
      `audio_source aufile,${join(dir, "source.wav")}`,
      "audio_player aubridge,sink",
      "audio_alert aubridge,sink",
      `module_path ${moduleDir()}`,
      "module g711.so",
      "module aufile.so",
      "module aubridge.so",
      "module sndfile.so",
      "module_app account.so",
      `snd_path ${join(dir, "rec")}`,
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    join(dir, "accounts"),
    `<sip:baresip@127.0.0.1:${port}>;regint=0;answermode=auto;audio_codecs=PCMU,PCMA\n`,
  );
  const child = new Deno.Command(BARESIP, {
    args: ["-f", dir, "-v"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const dec = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += dec.decode(chunk, { stream: true });
  };
  const pumping = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const deadline = Date.now() + 10_000;
  while (!text.includes("baresip is ready")) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`baresip did not start:\n${text}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const read = (suffix: string) => {
    const name = [...Deno.readDirSync(join(dir, "rec"))].find((e) => e.name.endsWith(suffix));
    return name ? Deno.readFileSync(join(dir, "rec", name.name)) : undefined;
  };
  return {
    uri: `sip:baresip@127.0.0.1:${port}`,
    dir,
    log: () => text,
    recordings: () => {
      const decoded = read("-dec.wav");
      const encoded = read("-enc.wav");
      return { ...(decoded ? { decoded } : {}), ...(encoded ? { encoded } : {}) };
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* exited */ }
      await child.status;
      await pumping;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
