/**
 * A SIP caller of our own for `serve --sip` tests, with exactly known behaviour: it
 * sends an INVITE with a PCMU + telephone-event offer from its own SIP and RTP sockets
 * on 127.0.0.1, ACKs the 200, keeps every RTP packet it gets (audio and events), sends
 * RFC 4733 keys and PCMU audio, answers the server's BYE, or sends its own.
 *
 * @module
 */
import { createSocket, type Socket } from "node:dgram";

/** One RTP packet received. */
export interface ReceivedRtp {
  at: number;
  payloadType: number;
  marker: boolean;
  seq: number;
  timestamp: number;
  payload: Uint8Array;
}

async function bound(address = "127.0.0.1"): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve) => s.bind(0, address, () => resolve()));
  return s;
}

/** How a caller presents itself (defaults: what it really is). */
export interface SipCallerOptions {
  /** The loopback address its sockets bind (default 127.0.0.1). */
  address?: string;
  /** The address its SDP offers (default its own): a NAT's, or another interface's. */
  sdpAddress?: string;
  /** Its Via's sent-by (default its own address and port), e.g. `192.0.2.2:41313;rport`. */
  via?: string;
}

/** A caller: `call()` dials and resolves with the 200 OK's text. */
export class SipCaller {
  readonly sip: Socket;
  readonly rtp: Socket;
  readonly messages: string[] = [];
  readonly packets: ReceivedRtp[] = [];
  readonly callId = `uac-${crypto.randomUUID()}@127.0.0.1`;
  #wake = () => {};
  #server = { port: 0, rtpPort: 0 };
  #toTag = "";
  #seq = 1;
  #rtpSeq = 1000;
  #rtpTs = 5000;
  #invite = "";
  #ssrc = 0x1234abcd;
  readonly #o: SipCallerOptions;

  private constructor(sip: Socket, rtp: Socket, o: SipCallerOptions) {
    this.sip = sip;
    this.rtp = rtp;
    this.#o = o;
    sip.on("message", (data) => {
      const text = new TextDecoder().decode(data);
      this.messages.push(text);
      // The server's BYE is answered at once.
      if (text.startsWith("BYE ")) this.#send(answer(text, 200, "OK"));
      this.#wake();
    });
    sip.on("error", () => {});
    rtp.on("message", (data) => {
      const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
      this.packets.push({
        at: performance.now(),
        payloadType: data[1]! & 0x7f,
        marker: (data[1]! & 0x80) !== 0,
        seq: v.getUint16(2),
        timestamp: v.getUint32(4),
        payload: data.subarray(12),
      });
    });
  }

  static async open(o: SipCallerOptions = {}): Promise<SipCaller> {
    return new SipCaller(await bound(o.address), await bound(o.address), o);
  }

  get address(): string {
    return this.#o.address ?? "127.0.0.1";
  }

  /** The To tag the server gave (after `call`). */
  get toTag(): string {
    return this.#toTag;
  }

  /** The SSRC of what it sends from now on (a restarted stream), and its next sequence number. */
  restartStream(ssrc: number, sequence: number): void {
    this.#ssrc = ssrc;
    this.#rtpSeq = sequence;
  }

  /** A key as SIP INFO in the dialog, `application/dtmf-relay` or `application/dtmf`. */
  async info(key: string, type = "application/dtmf-relay"): Promise<string> {
    const cseq = ++this.#seq;
    const body = type === "application/dtmf" ? key : `Signal=${key}\r\nDuration=160\r\n`;
    this.#send(this.#request("INFO", this.#uri, body, [`Content-Type: ${type}`], cseq));
    return await this.next(
      /^SIP\/2\.0 \d+ /,
      5000,
      "INFO",
      (m) => new RegExp(`\r\nCSeq: ${cseq} INFO\r\n`).test(m),
    );
  }

  /** Any text to the server's SIP port from its own SIP socket. */
  sendSip(text: string | Uint8Array): void {
    this.#send(text);
  }

  #uri = "";

  get sipPort(): number {
    return this.sip.address().port;
  }

  get rtpPort(): number {
    return this.rtp.address().port;
  }

  /** The first message whose first line matches, waiting up to `ms`. */
  async next(
    pattern: RegExp,
    ms = 5000,
    method?: string,
    also: (m: string) => boolean = () => true,
  ): Promise<string> {
    const deadline = performance.now() + ms;
    const ofMethod = (m: string) =>
      method === undefined || new RegExp(`\r\nCSeq:\\s*\\d+ ${method}\r\n`, "i").test(m);
    while (true) {
      const found = this.messages.find((m) =>
        pattern.test(m.split("\r\n")[0]!) && ofMethod(m) && also(m)
      );
      if (found) return found;
      if (performance.now() > deadline) {
        throw new Error(
          `no ${pattern} within ${ms} ms; got ${
            JSON.stringify(this.messages.map((m) => m.split("\r\n")[0]))
          }`,
        );
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  /** INVITE `uri` at `port`, ACK its 200; resolves with the 200's text. */
  async call(
    uri: string,
    port: number,
    extra: string[] = [],
    options: { ack?: boolean } = {},
  ): Promise<string> {
    this.#server.port = port;
    this.#uri = uri;
    const sdp = this.#offer("sendrecv", 1);
    this.#invite = this.#request("INVITE", uri, sdp, extra, 1);
    this.#send(this.#invite);
    const ok = await this.next(/^SIP\/2\.0 [2-6]\d\d /, 5000, "INVITE");
    if (!ok.startsWith("SIP/2.0 200 ")) throw new Error(`INVITE refused: ${ok.split("\r\n")[0]}`);
    this.#toTag = /\r\nTo:[^\r\n]*;tag=([^;\r\n]+)/i.exec(ok)?.[1] ?? "";
    const m = /\r\nm=audio (\d+) /.exec(ok);
    this.#server.rtpPort = Number(m?.[1] ?? 0);
    if (options.ack !== false) this.#send(this.#request("ACK", uri, "", [], 1));
    return ok;
  }

  /** A re-INVITE in the dialog with the same offer in another direction (hold, resume). */
  async reinvite(
    uri: string,
    direction: "sendrecv" | "sendonly" | "inactive",
  ): Promise<string> {
    const cseq = ++this.#seq;
    const version = cseq;
    this.#send(this.#request("INVITE", uri, this.#offer(direction, version), [], cseq));
    const ok = await this.next(
      new RegExp(`^SIP/2\\.0 \\d+ `),
      5000,
      "INVITE",
      (m) => new RegExp(`\r\nCSeq: ${cseq} INVITE\r\n`).test(m),
    );
    this.#send(this.#request("ACK", uri, "", [], cseq));
    return ok;
  }

  #offer(direction: string, version: number): string {
    return [
      "v=0",
      `o=uac 1 ${version} IN IP4 ${this.#o.sdpAddress ?? this.address}`,
      "s=-",
      `c=IN IP4 ${this.#o.sdpAddress ?? this.address}`,
      "t=0 0",
      `m=audio ${this.rtpPort} RTP/AVP 0 101`,
      "a=rtpmap:0 PCMU/8000",
      "a=rtpmap:101 telephone-event/8000",
      "a=fmtp:101 0-15",
      "a=ptime:20",
      `a=${direction}`,
      "",
    ].join("\r\n");
  }

  /** Sends the INVITE again, as a retransmission. */
  resendInvite(): void {
    this.#send(this.#invite);
  }

  /** One key as RFC 4733 events (payload type 101): 3 updates, then the end ×3. */
  async key(key: string): Promise<void> {
    const event = "0123456789*#".indexOf(key);
    const ts = (this.#rtpTs += 800);
    for (let i = 1; i <= 4; i++) {
      const end = i === 4;
      const payload = Uint8Array.of(event, (end ? 0x80 : 0) | 10, 0, i * 160);
      for (let k = 0; k < (end ? 3 : 1); k++) this.#rtp(101, i === 1 && k === 0, ts, payload);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** PCMU audio (µ-law bytes), 160 a packet, paced at 20 ms. */
  async audio(mulaw: Uint8Array): Promise<void> {
    for (let at = 0; at + 160 <= mulaw.length; at += 160) {
      this.#rtp(0, at === 0, this.#rtpTs += 160, mulaw.subarray(at, at + 160));
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Raw bytes to the server's RTP port from the RTP socket (or `from`, another one). */
  sendRtpBytes(bytes: Uint8Array, from: Socket = this.rtp): void {
    from.send(bytes, this.#server.rtpPort, "127.0.0.1");
  }

  /** The server's RTP port (from its answer). */
  get serverRtpPort(): number {
    return this.#server.rtpPort;
  }

  /** Our BYE; resolves with its answer. */
  async hangUp(uri: string): Promise<string> {
    this.#send(this.#request("BYE", uri, "", [], ++this.#seq));
    return await this.next(/^SIP\/2\.0 (200|481) /, 5000, "BYE");
  }

  /** A request of this dialog's as text (tests send it from elsewhere). */
  requestText(method: string, extra: string[] = [], body = ""): string {
    return this.#request(method, this.#uri, body, extra, ++this.#seq);
  }

  close(): void {
    this.sip.close();
    this.rtp.close();
  }

  #rtp(pt: number, marker: boolean, ts: number, payload: Uint8Array): void {
    const out = new Uint8Array(12 + payload.length);
    const v = new DataView(out.buffer);
    out[0] = 0x80;
    out[1] = (marker ? 0x80 : 0) | pt;
    v.setUint16(2, this.#rtpSeq++ & 0xffff);
    v.setUint32(4, ts >>> 0);
    v.setUint32(8, this.#ssrc);
    out.set(payload, 12);
    this.sendRtpBytes(out);
  }

  #request(method: string, uri: string, body: string, extra: string[], cseq: number): string {
    return [
      `${method} ${uri} SIP/2.0`,
      `Via: SIP/2.0/UDP ${
        this.#o.via ?? `${this.address}:${this.sipPort}`
      };branch=z9hG4bK${crypto.randomUUID()}`,
      "Max-Forwards: 70",
      `From: <sip:uac@${this.address}:${this.sipPort}>;tag=uac1`,
      `To: <${uri}>${this.#toTag ? `;tag=${this.#toTag}` : ""}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${cseq} ${method}`,
      `Contact: <sip:uac@${this.address}:${this.sipPort}>`,
      ...extra,
      ...(body ? ["Content-Type: application/sdp"] : []),
      `Content-Length: ${new TextEncoder().encode(body).length}`,
      "",
      body,
    ].join("\r\n");
  }

  #send(text: string | Uint8Array): void {
    const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
    this.sip.send(bytes, this.#server.port, "127.0.0.1");
  }
}

/** A response to a request's text, its headers copied. */
function answer(request: string, status: number, reason: string): string {
  const lines = request.split("\r\n");
  const keep = lines.filter((l) => /^(Via|From|To|Call-ID|CSeq):/i.test(l));
  return [`SIP/2.0 ${status} ${reason}`, ...keep, "Content-Length: 0", "", ""].join("\r\n");
}
