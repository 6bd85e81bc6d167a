/**
 * linphone (`linphonec`, Debian's linphone-cli: belle-sip and mediastreamer, a SIP stack
 * callbench's authors did not write) as a real peer for tests, on loopback only. Each
 * run gets a home of its own in a temp dir, a config file written there, its
 * microphone a WAV file and its speaker a WAV recording (`soundcard use files`), and is
 * driven by commands on its stdin (`call`, a key as a line, `pause`, `resume`,
 * `terminate`).
 *
 * Its quirks, handled here:
 * - it answers `503` to every call until the folder of its database exists
 *   (`~/.local/share/linphone`), so the home is made with it;
 * - it may not take `sip_port` from the config on every version, so the port is also
 *   set with the `ports sip` command before anything else;
 * - it advertises its IPv6 or outward address in its SDP (`c=IN IP6 fd00::2`) while its
 *   RTP comes from loopback: callbench latches the first packet when the SDP's address
 *   cannot be a loopback call's source (PROTOCOL.md, "what is latched when");
 * - its SIP socket follows `bind_address`, its RTP socket does not (it sends from
 *   127.0.0.1 whatever the SIP address is).
 *
 * @module
 */
import dgram from "node:dgram";
import { join } from "node:path";
import { decodeWav, encodeWav } from "../src/audio/wav.ts";
import type { Pcm16 } from "../src/audio/pcm.ts";

export const LINPHONEC = "linphonec";

/** Whether linphonec is installed. */
export function linphoneInstalled(): boolean {
  try {
    return new Deno.Command(LINPHONEC, { args: ["-v"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** How a linphone is set up. */
export interface LinphoneOptions {
  /** The loopback address its SIP binds (default 127.0.0.1). */
  address?: string;
  /** Its microphone, 8 kHz mono (default 1 s of silence, looped by linphone). */
  source?: Int16Array;
  /** Answer calls at once (`-a`). */
  autoAnswer?: boolean;
  /** How it sends keys: RFC 4733 (default), SIP INFO, or in-band tones. */
  dtmf?: "rfc4733" | "info" | "inband";
  /** CRLF keep-alives on its SIP socket this often, ms (its default is 30 s). */
  keepAliveMs?: number;
}

export interface Linphone {
  /** `sip:linphone@ADDRESS:PORT`. */
  uri: string;
  address: string;
  port: number;
  /** Sends one command line. */
  command(line: string): Promise<void>;
  /** Waits until its output matches. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
  log(): string;
  /** What it recorded of the call (what it heard), once a call has ended. */
  recording(): Pcm16 | undefined;
  stop(): Promise<void>;
}

/** Whether a UDP port is free on 127.0.0.1. */
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

/** A UDP port below the ephemeral range that nothing holds now (as baresip's helper picks). */
async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = 20000 + Math.floor(Math.random() * 6000) * 2;
    if (await udpFree(p) && await udpFree(p + 1)) return p;
  }
  throw new Error("no free port for linphone");
}

function config(port: number, rtpPort: number, o: LinphoneOptions): string {
  const dtmf = o.dtmf ?? "rfc4733";
  return [
    "[sip]",
    `sip_port=${port}`,
    "sip_tcp_port=0",
    "sip_tls_port=0",
    `bind_address=${o.address ?? "127.0.0.1"}`,
    "default_proxy=-1",
    "register_only_when_network_is_up=0",
    `use_info=${dtmf === "info" ? 1 : 0}`,
    `use_rfc2833=${dtmf === "rfc4733" ? 1 : 0}`,
    `keepalive_period=${o.keepAliveMs ?? 30000}`,
    "[rtp]",
    `audio_rtp_port=${rtpPort}`,
    "[net]",
    "[sound]",
    "echocancellation=0",
    "",
  ].join("\n");
}

/** Starts linphonec, ready for commands. */
export async function startLinphone(o: LinphoneOptions = {}): Promise<Linphone> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-linphone-" });
  const home = join(dir, "home");
  // Quirk: 503 to every call until its database folder exists.
  await Deno.mkdir(join(home, ".local", "share", "linphone"), { recursive: true });
  const port = await freePort();
  const rtpPort = await freePort();
  await Deno.writeTextFile(join(dir, "linphonerc"), config(port, rtpPort, o));
  await Deno.writeFile(
    join(dir, "source.wav"),
    encodeWav({ samples: o.source ?? new Int16Array(8000), sampleRate: 8000, channels: 1 }),
  );
  const child = new Deno.Command(LINPHONEC, {
    args: ["-c", join(dir, "linphonerc"), "-d", "0", ...(o.autoAnswer ? ["-a"] : [])],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { HOME: home },
  }).spawn();
  let text = "";
  const dec = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += dec.decode(chunk, { stream: true });
  };
  const pumping = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const writer = child.stdin.getWriter();
  const command = async (line: string) => {
    await writer.write(new TextEncoder().encode(`${line}\n`));
  };
  const waitFor = async (pattern: RegExp, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!pattern.test(text)) {
      if (Date.now() > deadline) throw new Error(`linphone: no ${pattern} in ${ms} ms:\n${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const address = o.address ?? "127.0.0.1";
  // Quirk: the port is set again by command, whatever the config said.
  await command(`ports sip ${port}`);
  await command("soundcard use files");
  await command(`play ${join(dir, "source.wav")}`);
  await command(`record ${join(dir, "heard.wav")}`);
  await command("ports");
  await waitFor(/audio rtp port = \d+/);
  let stopped = false;
  return {
    uri: `sip:linphone@${address}:${port}`,
    address,
    port,
    command,
    waitFor,
    log: () => text,
    recording() {
      try {
        const wav = decodeWav(Deno.readFileSync(join(dir, "heard.wav")));
        return wav.ok ? wav.audio : undefined;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await command("quit");
        await writer.close();
      } catch { /* it has gone */ }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* exited */ }
      }, 5000);
      await child.status;
      clearTimeout(timer);
      await pumping;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
