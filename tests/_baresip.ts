/**
 * baresip (the Debian package) as a real SIP peer for tests, on loopback only: a config
 * folder made in a temp dir (UDP on a free port, bound to 127.0.0.1, no registration,
 * auto-answer, PCMU/PCMA), its audio source a WAV file (`aufile`), its player a sink
 * (`aubridge`) behind the `sndfile` filter, which records what it decoded from us
 * (`dump-*-dec.wav`) and what it encoded for us (`dump-*-enc.wav`).
 *
 * Two ways to run it: `startBaresip` waits for callbench to dial it (auto-answer);
 * `runBaresip` dials callbench on start (`/dial`, the `menu` module), plays its WAV,
 * hangs up with a BYE when the WAV ends (or quits after `seconds`), and returns what it
 * recorded.
 *
 * @module
 */
import dgram from "node:dgram";
import { join } from "node:path";
import { decodeWav, encodeWav } from "../src/audio/wav.ts";
import type { Pcm16 } from "../src/audio/pcm.ts";

/** The command, found on PATH. */
export const BARESIP = "baresip";
/** Where the Debian package (and a source install) put the modules. */
const MODULE_DIRS = ["/usr/lib/baresip/modules", "/usr/local/lib/baresip/modules"];
const NEEDED = ["g711", "aufile", "aubridge", "sndfile", "account", "menu"];

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

/**
 * A port whose UDP and TCP (SIP) and next TCP port (baresip's TLS) are free: even, from
 * 20000 to 31998, below Linux's ephemeral range (32768 up), where the system hands out
 * the ports of every other socket the tests open.
 */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 6000) * 2;
    if (tcpFree(p) && tcpFree(p + 1) && await udpFree(p)) return p;
  }
  throw new Error("no free port pair for baresip");
}

/** The config of a run in `dir` on `port`: G.711, the WAV as microphone, a sink as speaker. */
function configText(dir: string, port: number, extra: string[] = []): string {
  return [
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
    ...extra,
    `snd_path ${join(dir, "rec")}`,
    "",
  ].join("\n");
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

/** baresip's words when the port chosen was taken between the check and its bind. */
const PORT_TAKEN = /Address already in use/;
/** Starts with a fresh port this many times when the one chosen was taken meanwhile. */
const PORT_ATTEMPTS = 4;

/**
 * Starts baresip with `source` (PCM16 mono 8 kHz) as its audio; resolves once it is ready.
 * `port` is its first try's SIP port (default: one found free); a port taken by then is
 * retried on a fresh one.
 */
export async function startBaresip(source: Int16Array, port?: number): Promise<Baresip> {
  for (let attempt = 1;; attempt++) {
    try {
      return await startOnce(source, attempt === 1 && port !== undefined ? port : await freePort());
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt >= PORT_ATTEMPTS) throw e;
    }
  }
}

class PortTaken extends Error {}

/** Signals `child` unless it has exited already (baresip quits by itself on a taken port). */
export function signal(child: Deno.ChildProcess, sig: Deno.Signal): void {
  try {
    child.kill(sig);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
}

async function startOnce(source: Int16Array, port: number): Promise<Baresip> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-baresip-" });
  await Deno.mkdir(join(dir, "rec"));
  await Deno.writeFile(
    join(dir, "source.wav"),
    encodeWav({ samples: source, sampleRate: 8000, channels: 1 }),
  );
  await Deno.writeTextFile(join(dir, "config"), configText(dir, port));
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
    if (PORT_TAKEN.test(text)) {
      signal(child, "SIGKILL");
      await child.status;
      await pumping;
      await Deno.remove(dir, { recursive: true });
      throw new PortTaken(text);
    }
    if (Date.now() > deadline) {
      signal(child, "SIGKILL");
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
      signal(child, "SIGTERM");
      await child.status;
      await pumping;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** How one dialling run is set up. */
export interface BaresipDialOptions {
  /** The SIP URI it dials on start. */
  dial: string;
  /** Its microphone: 8 kHz mono samples played from the call's start (default: 1 s of silence). */
  source?: Int16Array;
  /** Seconds after which it quits (hanging up a call still on): `-t`. */
  seconds: number;
}

/** What one dialling run did. */
export interface BaresipRun {
  /** Its exit code. */
  code: number;
  /** Everything it printed (stdout and stderr). */
  log: string;
  /** What it sent in its call (its encoder's input, 8 kHz), if it had one. */
  sent?: Pcm16;
  /** What it heard in its call (its decoder's output, 8 kHz), if it had one. */
  heard?: Pcm16;
}

/**
 * Runs baresip dialling `dial` to its end and returns what it recorded. It hangs up
 * (BYE) when its WAV ends: the WAV's length is the call's.
 */
export async function runBaresip(options: BaresipDialOptions): Promise<BaresipRun> {
  for (let attempt = 1;; attempt++) {
    const run = await runOnce(options);
    if (!PORT_TAKEN.test(run.log) || attempt >= PORT_ATTEMPTS) return run;
  }
}

async function runOnce(options: BaresipDialOptions): Promise<BaresipRun> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-baresip-" });
  try {
    const port = await freePort();
    await Deno.mkdir(join(dir, "rec"));
    const source = options.source ?? new Int16Array(8000);
    await Deno.writeFile(
      join(dir, "source.wav"),
      encodeWav({ samples: source, sampleRate: 8000, channels: 1 }),
    );
    await Deno.writeTextFile(join(dir, "config"), configText(dir, port, ["module_app menu.so"]));
    await Deno.writeTextFile(
      join(dir, "accounts"),
      `<sip:baresip@127.0.0.1:${port}>;regint=0;audio_codecs=PCMU,PCMA\n`,
    );
    const out = await new Deno.Command(BARESIP, {
      args: ["-f", dir, "-t", String(options.seconds), "-e", `/dial ${options.dial}`],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const dec = new TextDecoder();
    const run: BaresipRun = {
      code: out.code,
      log: dec.decode(out.stdout) + dec.decode(out.stderr),
    };
    for await (const entry of Deno.readDir(join(dir, "rec"))) {
      const kind = /-(enc|dec)\.wav$/.exec(entry.name)?.[1];
      if (!kind) continue;
      const wav = decodeWav(await Deno.readFile(join(dir, "rec", entry.name)));
      if (!wav.ok) continue;
      if (kind === "enc") run.sent = wav.audio;
      else run.heard = wav.audio;
    }
    return run;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
