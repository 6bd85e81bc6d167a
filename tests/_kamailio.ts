/**
 * Kamailio (the Debian package) as a real SIP proxy in front of a peer, for tests: a
 * config file written into a temp dir, listening only on 127.0.0.1 (UDP, a free port,
 * no TCP), stateful (`tm`), recording the route on every INVITE (`rr`, loose routing),
 * relaying in-dialog requests by their Route (a request of no dialog it knows gets
 * `404 Not here`, as a default Kamailio answers), and sending every new call to one
 * target, whatever its Request-URI's host (ready once it answers a probe). Each request it handles is logged (`kam:
 * METHOD R-URI from SOURCE`), so a test sees what went through it.
 *
 * @module
 */
import dgram from "node:dgram";
import { join } from "node:path";

export const KAMAILIO = "kamailio";
const MODULES = ["/usr/lib/x86_64-linux-gnu/kamailio/modules", "/usr/lib/kamailio/modules"];

function moduleDir(): string | undefined {
  return MODULES.find((dir) => {
    try {
      Deno.statSync(join(dir, "tm.so"));
      return true;
    } catch {
      return false;
    }
  });
}

/** Whether kamailio and its modules are installed. */
export function kamailioInstalled(): boolean {
  if (!moduleDir()) return false;
  try {
    return new Deno.Command(KAMAILIO, { args: ["-v"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", () => resolve()));
  const port = s.address().port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

function config(port: number, target: string): string {
  return `#!KAMAILIO
debug=2
log_stderror=yes
children=1
disable_tcp=yes
auto_aliases=no
listen=udp:127.0.0.1:${port}
mpath="${moduleDir()}/"
loadmodule "tm.so"
loadmodule "sl.so"
loadmodule "rr.so"
loadmodule "maxfwd.so"
loadmodule "pv.so"
loadmodule "siputils.so"
loadmodule "textops.so"
loadmodule "xlog.so"
request_route {
  xlog("L_NOTICE", "kam: $rm $ru from $si:$sp\\n");
  if (!mf_process_maxfwd_header("10")) { sl_send_reply("483", "Too Many Hops"); exit; }
  if (has_totag()) {
    if (loose_route()) { t_relay(); exit; }
    if (is_method("ACK")) { if (t_check_trans()) { t_relay(); } exit; }
    sl_send_reply("404", "Not here");
    exit;
  }
  if (is_method("CANCEL")) { if (t_check_trans()) { t_relay(); } exit; }
  if (is_method("INVITE")) { record_route(); }
  $du = "${target}";
  t_relay();
}
reply_route {
  xlog("L_NOTICE", "kam: reply $rs $rr from $si:$sp\\n");
}
`;
}

export interface Kamailio {
  /** Its address, `127.0.0.1:PORT`. */
  hostPort: string;
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** Starts Kamailio relaying new calls to `target` (`sip:HOST:PORT`); resolves once it listens. */
export async function startKamailio(target: string): Promise<Kamailio> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-kamailio-" });
  const port = await freeUdpPort();
  const cfg = join(dir, "kamailio.cfg");
  await Deno.writeTextFile(cfg, config(port, target));
  const child = new Deno.Command(KAMAILIO, {
    args: ["-f", cfg, "-D", "-E", "-w", dir, "-Y", dir, "-P", join(dir, "kamailio.pid")],
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
  // Ready once it answers: an in-dialog OPTIONS of no dialog gets its own 404.
  const probe = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => probe.bind(0, "127.0.0.1", () => resolve()));
  let ready = false;
  probe.on("message", () => (ready = true));
  const ping = new TextEncoder().encode([
    `OPTIONS sip:probe@127.0.0.1:${port} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${probe.address().port};branch=z9hG4bKprobe${port}`,
    "Max-Forwards: 70",
    "From: <sip:probe@127.0.0.1>;tag=p",
    "To: <sip:probe@127.0.0.1>;tag=q",
    `Call-ID: probe-${port}`,
    "CSeq: 1 OPTIONS",
    "Content-Length: 0",
    "",
    "",
  ].join("\r\n"));
  const deadline = Date.now() + 10_000;
  try {
    while (!ready) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        await pumping;
        throw new Error(`kamailio did not start:\n${text}`);
      }
      probe.send(ping, port, "127.0.0.1");
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    probe.close();
  }
  return {
    hostPort: `127.0.0.1:${port}`,
    port,
    log: () => text,
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
