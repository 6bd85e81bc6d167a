/**
 * A WebSocket client in a Worker of its own, for tests of what a server hears: given
 * `{ url, messages }`, it opens the socket (the `ws` package, as callbench's client), posts
 * `{ sent }` (`performance.timeOrigin + performance.now()`) just before it sends each
 * message, `{ back }` with the first binary message it is sent (then it closes), and
 * `{ closed: true }`. What it sends leaves when it says, whatever the test's thread does.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import * as wsModule from "ws";

/** The part of the `ws` client used here (the package ships no types). */
interface Client {
  binaryType: string;
  onopen: () => void;
  onmessage: (m: { data: ArrayBuffer }) => void;
  onclose: () => void;
  send(data: string): void;
  close(): void;
}
const { WebSocket } = wsModule as unknown as {
  WebSocket: new (url: string, options: { perMessageDeflate: boolean }) => Client;
};

self.onmessage = (event: MessageEvent<{ url: string; messages: string[] }>) => {
  const ws = new WebSocket(event.data.url, { perMessageDeflate: false });
  ws.binaryType = "arraybuffer";
  ws.onopen = () => {
    for (const m of event.data.messages) {
      self.postMessage({ sent: performance.timeOrigin + performance.now() });
      ws.send(m);
    }
  };
  ws.onmessage = (m) => {
    self.postMessage({ back: [...new Uint8Array(m.data)] });
    ws.close();
  };
  ws.onclose = () => self.postMessage({ closed: true });
};
