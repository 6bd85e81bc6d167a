/**
 * A WebSocket client written over a raw TCP connection, for abuse tests: it sends
 * frames exactly as given (a header announcing more than is sent, many tiny frames in
 * one write) and reads the server's frames, close frames included.
 *
 * @module
 */

/** One frame from the server. */
export interface ServerFrame {
  opcode: number;
  payload: Uint8Array;
}

const utf8 = new TextEncoder();

/** A client frame's bytes: FIN, `opcode`, masked with a zero key, of `length` (default the payload's). */
export function clientFrame(
  opcode: number,
  payload: Uint8Array,
  length = payload.byteLength,
): Uint8Array<ArrayBuffer> {
  const head = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const out = new Uint8Array(head + 4 + payload.byteLength);
  out[0] = 0x80 | opcode;
  if (length < 126) out[1] = 0x80 | length;
  else if (length < 65_536) {
    out[1] = 0x80 | 126;
    new DataView(out.buffer).setUint16(2, length);
  } else {
    out[1] = 0x80 | 127;
    new DataView(out.buffer).setBigUint64(2, BigInt(length));
  }
  // A zero mask key leaves the payload as is.
  out.set(payload, head + 4);
  return out;
}

/** A text frame of `text`. */
export function textFrame(text: string): Uint8Array<ArrayBuffer> {
  return clientFrame(1, utf8.encode(text));
}

/** `frame` `n` times over, for one write. */
export function repeatFrame(frame: Uint8Array, n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(frame.byteLength * n);
  for (let i = 0; i < n; i++) out.set(frame, i * frame.byteLength);
  return out;
}

/** A WebSocket connection on a raw socket. */
export class RawSocketClient {
  readonly conn: Deno.TcpConn;
  readonly frames: ServerFrame[] = [];
  /** Resolves with the close code once the server's close frame or EOF arrives (1006). */
  readonly closed: Promise<number>;
  #buffer: Uint8Array = new Uint8Array(0);
  #wake: () => void = () => {};

  private constructor(conn: Deno.TcpConn, rest: Uint8Array, read: boolean) {
    this.conn = conn;
    this.#buffer = rest;
    this.closed = read ? this.#read() : new Promise<number>(() => {});
  }

  /**
   * Opens `url` (ws://127.0.0.1:PORT/PATH?QUERY); rejects with the status if refused.
   * With `read: false` nothing the server sends is ever read (a client that does not read).
   */
  static async open(url: string, options: { read?: boolean } = {}): Promise<RawSocketClient> {
    const u = new URL(url);
    const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    await writeAll(
      conn,
      utf8.encode(
        `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n` +
          `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    let got: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(chunk);
      if (n === null) throw new Error("closed during the handshake");
      got = concat(got, chunk.subarray(0, n));
      const text = new TextDecoder().decode(got);
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) continue;
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
      if (status !== 101) {
        conn.close();
        throw new Error(`upgrade refused: ${status}`);
      }
      const rest = got.subarray(utf8.encode(text.slice(0, end + 4)).length);
      return new RawSocketClient(conn, rest, options.read ?? true);
    }
  }

  /** Writes raw bytes (frames); false once the server has gone. */
  async write(bytes: Uint8Array): Promise<boolean> {
    try {
      await writeAll(this.conn, bytes);
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves once a frame matching `pred` has arrived (or rejects after `timeoutMs`). */
  async until(pred: (f: ServerFrame) => boolean, timeoutMs = 5_000): Promise<ServerFrame> {
    const deadline = performance.now() + timeoutMs;
    while (true) {
      const hit = this.frames.find(pred);
      if (hit) return hit;
      const left = deadline - performance.now();
      if (left <= 0) throw new Error("timed out waiting for a frame");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  /** Closes the TCP connection. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  async #read(): Promise<number> {
    const chunk = new Uint8Array(65_536);
    try {
      while (true) {
        const code = this.#parse();
        if (code !== undefined) return code;
        const n = await this.conn.read(chunk);
        if (n === null) return 1006;
        this.#buffer = concat(this.#buffer, chunk.subarray(0, n));
      }
    } catch {
      return 1006;
    } finally {
      this.#wake();
    }
  }

  /** Takes whole frames off the buffer; a close frame's code ends the reading. */
  #parse(): number | undefined {
    while (this.#buffer.byteLength >= 2) {
      const b = this.#buffer;
      const opcode = b[0]! & 0x0f;
      let length = b[1]! & 0x7f;
      let at = 2;
      if (length === 126) {
        if (b.byteLength < 4) return;
        length = new DataView(b.buffer, b.byteOffset).getUint16(2);
        at = 4;
      } else if (length === 127) {
        if (b.byteLength < 10) return;
        length = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(2));
        at = 10;
      }
      if (b.byteLength < at + length) return;
      const payload = b.slice(at, at + length);
      this.#buffer = b.subarray(at + length);
      this.frames.push({ opcode, payload });
      this.#wake();
      if (opcode === 8) {
        return payload.byteLength >= 2
          ? new DataView(payload.buffer, payload.byteOffset).getUint16(0)
          : 1005;
      }
    }
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.byteLength) done += await conn.write(bytes.subarray(done));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
