/**
 * baresip (the Debian package's `baresip` 1.x) as a real SIP peer for tests, on loopback
 * only: a config folder in a temp dir (G.711 only, no sound card: `aufile` plays a WAV as
 * the microphone, ALSA's `null` device is the speaker, `sndfile` records both directions),
 * one account that answers by itself, and optionally a call dialled on start. It quits
 * after `seconds` (`-t`), hanging up its call with a BYE; what it sent and heard come back
 * as 8 kHz PCM.
 *
 * `baresipInstalled()` tells a test whether to skip.
 *
 * @module
 */
import { createSocket } from "node:dgram";
import { decodeWav, encodeWav } from "../src/audio/wav.ts";
import { type Pcm16, pcm16 } from "../src/audio/pcm.ts";

/** How one baresip run is set up. */
export interface BaresipOptions {
  /** A SIP URI to dial on start (`/dial URI`); none: it waits, answering any call. */
  dial?: string;
  /** Its microphone: 8 kHz mono samples played from the call's start (default: silence). */
  source?: Int16Array;
  /** Seconds after which it quits (hanging up its call): `-t`. */
  seconds: number;
  /** SIP port it listens on (UDP and TCP on 127.0.0.1); 0 (default) picks a free one. */
  port?: number;
  /** Account user part (default `baresip`). */
  user?: string;
}

/** What one run did. */
export interface BaresipRun {
  /** Its exit code. */
  code: number;
  /** Everything it printed (stdout and stderr). */
  log: string;
  /** The SIP port it listened on. */
  port: number;
  /** What it sent in its call (its encoder's input, 8 kHz), if it had one. */
  sent?: Pcm16;
  /** What it heard in its call (its decoder's output, 8 kHz), if it had one. */
  heard?: Pcm16;
}

const MODULES = "/usr/lib/baresip/modules";

/** Whether baresip and the modules these tests use are on this machine. */
export async function baresipInstalled(): Promise<boolean> {
  try {
    const out = await new Deno.Command("baresip", { args: ["-h"], stdout: "null", stderr: "null" })
      .output();
    void out;
    for (const m of ["g711", "aufile", "sndfile", "alsa", "menu", "account"]) {
      await Deno.stat(`${MODULES}/${m}.so`);
    }
    return true;
  } catch {
    return false;
  }
}

/** A port free on 127.0.0.1 for both UDP and TCP (as far as can be known in advance). */
export async function freeSipPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const udp = createSocket("udp4");
    const port = await new Promise<number>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(0, "127.0.0.1", () => resolve(udp.address().port));
    });
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch {
      // Taken for TCP: try another.
    } finally {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    }
  }
  throw new Error("no free port for baresip");
}

/** RTP ports for one run: a block of 20 that no other run of this process uses. */
let nextRtp = 30_000 + (Deno.pid % 1000) * 20;

/**
 * Runs baresip to its end (`seconds`, plus its shutdown) and returns what it
 * recorded. The run is spawned asynchronously, so the caller's server keeps running.
 */
export async function runBaresip(options: BaresipOptions): Promise<BaresipRun> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-baresip-" });
  try {
    const port = options.port || await freeSipPort();
    const rtp = nextRtp;
    nextRtp = 30_000 + ((nextRtp - 30_000 + 20) % 20_000);
    const rec = `${dir}/rec`;
    await Deno.mkdir(rec);
    const source = `${dir}/source.wav`;
    await Deno.writeFile(source, encodeWav(pcm16(options.source ?? new Int16Array(8000), 8000)));
    await Deno.writeTextFile(
      `${dir}/config`,
      [
        "poll_method epoll",
        `sip_listen 127.0.0.1:${port}`,
        "net_interface 127.0.0.1",
        "audio_player alsa,null",
        `audio_source aufile,${source}`,
        "audio_alert alsa,null",
        "audio_path /usr/share/baresip",
        `module_path ${MODULES}`,
        "module g711.so",
        "module aufile.so",
        "module sndfile.so",
        "module alsa.so",
        "module_app account.so",
        "module_app menu.so",
        `snd_path ${rec}`,
        `rtp_ports ${rtp}-${rtp + 19}`,
        "",
      ].join("\n"),
    );
    await Deno.writeTextFile(
      `${dir}/accounts`,
      `<sip:${options.user ?? "baresip"}@127.0.0.1:${port}>;regint=0;answermode=auto\n`,
    );
    const args = ["-f", dir, "-t", String(options.seconds)];
    if (options.dial) args.push("-e", `/dial ${options.dial}`);
    const out = await new Deno.Command("baresip", {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const dec = new TextDecoder();
    const log = dec.decode(out.stdout) + dec.decode(out.stderr);
    const run: BaresipRun = { code: out.code, log, port };
    for await (const entry of Deno.readDir(rec)) {
      const kind = /-(enc|dec)\.wav$/.exec(entry.name)?.[1];
      if (!kind) continue;
      const wav = decodeWav(await Deno.readFile(`${rec}/${entry.name}`));
      if (!wav.ok) continue;
      if (kind === "enc") run.sent = wav.audio;
      else run.heard = wav.audio;
    }
    return run;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
