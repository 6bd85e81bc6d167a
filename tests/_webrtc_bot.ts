/**
 * The Deno side of the libwebrtc SmallWebRTC bot (`./_webrtc_bot_node.cjs`, which says
 * what it does): makes sure `@roamhq/wrtc` is downloaded (its manifest only: its native
 * code never loads in Deno), starts the bot under Node and reads its log.
 *
 * @module
 */
import { lazyPackageFile } from "../src/audio/lazy_npm.ts";

/** The libwebrtc build the bot runs on. */
export const WRTC_PACKAGE = { name: "@roamhq/wrtc", version: "0.10.0" } as const;

export interface PlannedTool {
  name: string;
  arguments?: Record<string, unknown>;
}

export interface WebRtcBotOptions {
  /** Delay after each caller utterance's end, ms (the last one repeats). */
  delays: number[];
  /** How many caller utterances it answers before it ends the call (default: delays.length). */
  answers?: number;
  /** Tools to run before the first answer. */
  plan?: PlannedTool[];
  greetMs?: number;
  /** Length of each reply and of the greeting, ms. */
  speechMs?: number;
  endSilenceMs?: number;
  /** Answers with a broken answer (bad-input tests). */
  answerEdit?: "no-audio" | "pcmu-only" | "no-ice" | "not-json";
  /** Never answers the offer (the POST hangs). */
  silent?: boolean;
  /** Answers the offer with this HTTP status. */
  status?: number;
}

export interface BotReply {
  /** The caller utterance's end as heard here, and the reply's first sample fed. */
  callerEndAt: number;
  sentAt: number;
  delayMs: number;
}

export interface WebRtcBotLog {
  offers: number;
  pings: number;
  messages: string[];
  replies: BotReply[];
  /** Tool results received, by name. */
  results: { name: string; result: unknown }[];
  ended: boolean;
}

export interface WebRtcBot {
  url: string;
  /** What the bot logged so far. */
  log(): Promise<WebRtcBotLog>;
  /** Stops it; its last log. */
  close(): Promise<WebRtcBotLog>;
}

/** Starts the bot under Node on 127.0.0.1 (a free port). */
export async function startWebRtcBot(options: WebRtcBotOptions): Promise<WebRtcBot> {
  const manifest = await lazyPackageFile(WRTC_PACKAGE, "package.json");
  const dir = new URL(".", manifest).pathname;
  const script = new URL("./_webrtc_bot_node.cjs", import.meta.url).pathname;
  const child = new Deno.Command("node", {
    args: [script, dir, JSON.stringify(options)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<Record<string, unknown>> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the WebRTC bot exited");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return JSON.parse(line);
  };
  const writer = child.stdin.getWriter();
  const ask = async (what: string): Promise<WebRtcBotLog> => {
    await writer.write(new TextEncoder().encode(what + "\n"));
    return (await nextLine()).log as WebRtcBotLog;
  };
  const { url } = await nextLine() as { url: string };
  return {
    url,
    log: () => ask("log"),
    async close() {
      const log = await ask("close");
      await writer.close().catch(() => {});
      await child.status;
      await lines.cancel().catch(() => {});
      return log;
    },
  };
}
