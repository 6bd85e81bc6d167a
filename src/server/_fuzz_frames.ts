/**
 * Random and malformed RTVI frames from a seeded PRNG, for fuzz tests: raw bytes,
 * text, broken JSON, envelopes with random types, ids and data, every client
 * message and handler with random arguments, valid and truncated protobuf frames.
 *
 * @module
 */
import { HANDLERS } from "../protocol/handlers.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import { encodeMessageFrame } from "../protocol/protobuf.ts";

/** The fuzzer's seeded PRNG. */
export const prng: (seed: number) => () => number = mulberry32;

/** Client types, less `disconnect-bot` (it ends the session, which has its own test). */
const CLIENT_TYPES = [
  "client-ready",
  "client-message",
  "send-text",
  "dtmf",
  "llm-function-call-result",
  "raw-audio",
  "append-to-context",
  "ui-event",
];
/** Words the echo participant acts on, so fuzzed speech exercises every line method. */
const WORDS = ["hello", "bye", "fail", "beep", "trace", "press 1#", "tool lookup {}", "ok"];

export type FuzzFrame = { kind: string; data: string | Uint8Array<ArrayBuffer> };

export function fuzzFrames(seed: number, count: number): FuzzFrame[] {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const text = (max: number) =>
    Array.from({ length: int(max) }, () => String.fromCodePoint(pick([32 + int(95), int(0x2fff)])))
      .join("");
  const value = (depth: number): unknown => {
    switch (int(depth > 0 ? 8 : 6)) {
      case 0:
        return null;
      case 1:
        return rand() < 0.5;
      case 2:
        return pick([0, -1, 1e308, 3.5, 2 ** 53]);
      case 3:
        return text(12);
      case 4:
        return pick(WORDS);
      case 5:
        return pick(["2.1.0", "1.1.0", "9.9.9", "x", ""]);
      case 6:
        return Array.from({ length: int(4) }, () => value(depth - 1));
      default:
        return Object.fromEntries(
          Array.from(
            { length: int(4) },
            () => [pick(["t", "d", "content", "buttons", "prompt", text(5)]), value(depth - 1)],
          ),
        );
    }
  };
  const envelope = () => {
    const type = rand() < 0.9 ? pick(CLIENT_TYPES) : text(10);
    const msg: Record<string, unknown> = { label: rand() < 0.95 ? "rtvi-ai" : value(1), type };
    if (rand() < 0.8) msg.id = rand() < 0.9 ? `f${int(1e6)}` : value(1);
    if (type === "client-message") {
      msg.data = { t: pick([...HANDLERS, "eval", text(6)]), d: value(3) };
    } else if (type === "send-text") msg.data = { content: rand() < 0.8 ? pick(WORDS) : value(1) };
    else if (type === "dtmf") msg.data = { buttons: [pick(["1", "#", "*", "x", 5])] };
    else if (rand() < 0.7) msg.data = value(3);
    return JSON.stringify(msg);
  };
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => int(256));
  const frames: FuzzFrame[] = [];
  for (let i = 0; i < count; i++) {
    switch (int(8)) {
      case 0:
        frames.push({ kind: "bytes", data: bytes(int(64)) });
        break;
      case 1:
        frames.push({ kind: "text", data: text(64) });
        break;
      case 2: {
        const json = envelope();
        frames.push({ kind: "broken-json", data: json.slice(0, int(json.length)) });
        break;
      }
      case 3:
        frames.push({ kind: "json-value", data: JSON.stringify(value(3)) ?? "null" });
        break;
      case 4:
      case 5:
        frames.push({ kind: "envelope", data: envelope() });
        break;
      case 6:
        frames.push({ kind: "protobuf", data: encodeMessageFrame(envelope()) });
        break;
      default: {
        const frame = encodeMessageFrame(envelope());
        const cut = frame.slice(0, Math.max(1, int(frame.length)));
        if (rand() < 0.5 && cut.length > 0) cut[int(cut.length)] = int(256);
        frames.push({ kind: "protobuf-damaged", data: cut });
      }
    }
  }
  return frames;
}
