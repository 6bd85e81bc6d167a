/**
 * A scripted SIP agent for the dialling side's tests (`eval --agent sip:…`), lower-level
 * than `./_sip_agent.ts`: it answers the INVITE with a PCMU + telephone-event SDP (and,
 * when asked, a Record-Route, an Allow, a Contact elsewhere), keeps every SIP datagram
 * and RTP packet it gets, and lets the test send whatever it likes in the dialog or
 * from elsewhere: keep-alives, re-INVITEs, INFO keys, RTP with any SSRC.
 *
 * @module
 */
import { createSocket, type Socket } from "node:dgram";
import {
  headerValue,
  parseSip,
  responseTo,
  serializeSip,
  type SipHeader,
  type SipRequest,
} from "../src/protocol/sip.ts";

async function bound(address: string): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, address, () => resolve()));
  s.on("error", () => {});
  return s;
}

/** How the agent answers. */
export interface SipUasOptions {
  /** Headers added to the 200 OK (Record-Route, Allow...). */
  okHeaders?: (uas: SipUas) => SipHeader[];
  /** The Contact of its 200 OK (default its own SIP socket). */
  contact?: string;
}

/** One datagram it got. */
export interface Got {
  text: string;
  from: { address: string; port: number };
}

export class SipUas {
  readonly sip: Socket;
  readonly rtp: Socket;
  readonly got: Got[] = [];
  readonly rtpIn: { pt: number; at: number }[] = [];
  invite?: SipRequest;
  /** Where callbench's SIP and RTP are. */
  caller = { address: "127.0.0.1", sipPort: 0, rtpPort: 0 };
  readonly toTag = "uas1";
  #cseq = 100;
  #seq = 0;
  #ts = 0;
  readonly #o: SipUasOptions;

  private constructor(sip: Socket, rtp: Socket, o: SipUasOptions) {
    this.sip = sip;
    this.rtp = rtp;
    this.#o = o;
    sip.on("message", (data, rinfo) => this.#onSip(data, rinfo));
    rtp.on("message", (data) => this.rtpIn.push({ pt: data[1]! & 0x7f, at: performance.now() }));
  }

  static async start(o: SipUasOptions = {}, address = "127.0.0.1"): Promise<SipUas> {
    return new SipUas(await bound(address), await bound(address), o);
  }

  get uri(): string {
    return `sip:agent@${this.sip.address().address}:${this.sip.address().port}`;
  }

  /** The first datagram whose text matches, waiting up to `ms`. */
  async next(pattern: RegExp, ms = 3000): Promise<Got> {
    const deadline = performance.now() + ms;
    while (true) {
      const found = this.got.find((g) => pattern.test(g.text));
      if (found) return found;
      if (performance.now() > deadline) {
        throw new Error(
          `no ${pattern} in ${ms} ms; got ${
            JSON.stringify(this.got.map((g) => g.text.split("\r\n")[0]))
          }`,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  #onSip(data: Uint8Array, rinfo: { address: string; port: number }): void {
    const text = new TextDecoder().decode(data);
    this.got.push({ text, from: { address: rinfo.address, port: rinfo.port } });
    const read = parseSip(data);
    if (!read.ok || read.message.kind !== "request") return;
    const req = read.message;
    const reply = (status: number, reason: string, headers: SipHeader[] = [], body = "") =>
      this.sip.send(
        new TextEncoder().encode(serializeSip(responseTo(req, status, reason, {
          toTag: this.toTag,
          headers,
          body,
        }))),
        rinfo.port,
        rinfo.address,
      );
    if (req.method === "INVITE" && !this.invite) {
      this.invite = req;
      const m = /\r\nm=audio (\d+) /.exec(`\r\n${req.body}`);
      const via = /SIP\/2\.0\/UDP ([\d.]+):(\d+)/.exec(headerValue(req, "Via") ?? "");
      this.caller = {
        address: via?.[1] ?? "127.0.0.1",
        sipPort: Number(via?.[2] ?? 0),
        rtpPort: Number(m?.[1] ?? 0),
      };
      reply(200, "OK", [
        ["Contact", this.#o.contact ?? `<${this.uri}>`],
        ...(this.#o.okHeaders?.(this) ?? []),
        ["Content-Type", "application/sdp"],
      ], this.sdp("sendrecv", 1));
    } else if (req.method === "BYE" || req.method === "INFO") {
      reply(200, "OK");
    }
  }

  /** Its SDP, in a direction. */
  sdp(direction: string, version: number): string {
    const address = this.rtp.address().address;
    return [
      "v=0",
      `o=uas 1 ${version} IN IP4 ${address}`,
      "s=-",
      `c=IN IP4 ${address}`,
      "t=0 0",
      `m=audio ${this.rtp.address().port} RTP/AVP 0 101`,
      "a=rtpmap:0 PCMU/8000",
      "a=rtpmap:101 telephone-event/8000",
      "a=fmtp:101 0-15",
      "a=ptime:20",
      `a=${direction}`,
      "",
    ].join("\r\n");
  }

  /** A request of the dialog (From and To swapped), as text. */
  request(method: string, extra: SipHeader[] = [], body = ""): string {
    const inv = this.invite!;
    return serializeSip({
      kind: "request",
      method,
      uri: `sip:callbench@${this.caller.address}:${this.caller.sipPort}`,
      headers: [
        ["Via", `SIP/2.0/UDP ${this.uri.slice(10)};branch=z9hG4bK${crypto.randomUUID()}`],
        ["From", `${headerValue(inv, "To")};tag=${this.toTag}`],
        ["To", headerValue(inv, "From")!],
        ["Call-ID", headerValue(inv, "Call-ID")!],
        ["CSeq", `${++this.#cseq} ${method}`],
        ["Contact", `<${this.uri}>`],
        ...extra,
      ],
      body,
    });
  }

  /** Text or bytes to callbench's SIP port, from its SIP socket (or `from`). */
  sendSip(text: string | Uint8Array, from: Socket = this.sip): void {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    from.send(bytes, this.caller.sipPort, this.caller.address);
  }

  /** One RTP packet to callbench, from its RTP socket (or `from`). */
  sendRtp(
    pt: number,
    payload: Uint8Array,
    o: { ssrc?: number; seq?: number; ts?: number; marker?: boolean; from?: Socket } = {},
  ): void {
    const out = new Uint8Array(12 + payload.length);
    const v = new DataView(out.buffer);
    out[0] = 0x80;
    out[1] = (o.marker ? 0x80 : 0) | pt;
    v.setUint16(2, (o.seq ?? this.#seq++) & 0xffff);
    v.setUint32(4, (o.ts ?? (this.#ts += 160)) >>> 0);
    v.setUint32(8, o.ssrc ?? 0x5151);
    out.set(payload, 12);
    (o.from ?? this.rtp).send(out, this.caller.rtpPort, this.caller.address);
  }

  close(): void {
    this.sip.close();
    this.rtp.close();
  }
}
