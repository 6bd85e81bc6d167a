/**
 * SmallWebRTC signalling, as pipecat's `SmallWebRTCRequestHandler` speaks it, and what
 * goes over its data channel besides RTVI:
 *
 * - `POST /api/offer` with `{sdp, type: "offer", pc_id?, restart_pc?, request_data?}`;
 *   the answer is `{sdp, type: "answer", pc_id}`. A renegotiation posts a new offer
 *   with the connection's `pc_id`.
 * - `PATCH /api/offer` with `{pc_id, candidates: [{candidate, sdp_mid, sdp_mline_index}]}`
 *   trickles ICE candidates (an empty `candidate` ends them).
 * - On the data channel: `ping…` text (the client's keep-alive, once a second),
 *   `{type: "signalling", message: {type: "renegotiate" | "peerLeft" | "trackStatus"}}`,
 *   and RTVI messages (JSON objects with `label: "rtvi-ai"`).
 *
 * Also the checks an SDP answer must pass before a call starts on it (an audio section
 * that carries Opus both ways, and a data channel): {@link answerProblem}.
 *
 * @module
 */
import { z } from "zod";
import { issues } from "./messages.ts";

/** The path pipecat's runner serves offers on. */
export const OFFER_PATH = "/api/offer";

export const OfferRequestSchema = z.looseObject({
  sdp: z.string().min(1),
  type: z.literal("offer"),
  pc_id: z.string().min(1).nullable().optional(),
  restart_pc: z.boolean().nullable().optional(),
  request_data: z.unknown().optional(),
  requestData: z.unknown().optional(),
});
export type OfferRequest = z.infer<typeof OfferRequestSchema>;

export const AnswerSchema = z.looseObject({
  sdp: z.string().min(1),
  type: z.literal("answer"),
  pc_id: z.string().min(1),
});
export type Answer = z.infer<typeof AnswerSchema>;

export const IceCandidatePatchSchema = z.looseObject({
  candidate: z.string(),
  sdp_mid: z.string().nullable().optional(),
  sdp_mline_index: z.number().int().min(0).nullable().optional(),
});

export const PatchRequestSchema = z.looseObject({
  pc_id: z.string().min(1),
  candidates: z.array(IceCandidatePatchSchema).max(256),
});
export type PatchRequest = z.infer<typeof PatchRequestSchema>;

/** A signalling message on the data channel. */
export const SignallingSchema = z.looseObject({
  type: z.literal("signalling"),
  message: z.looseObject({ type: z.string().min(1) }),
});

/** What one data-channel text is. */
export type ChannelText =
  | { kind: "ping" }
  | { kind: "signalling"; type: string; message: Record<string, unknown> }
  /** Anything else: RTVI's to read (and to refuse, if it is not RTVI). */
  | { kind: "app"; text: string };

/** Sorts a data-channel text: keep-alive, signalling, or an application (RTVI) message. */
export function readChannelText(text: string): ChannelText {
  if (text.startsWith("ping")) return { kind: "ping" };
  // Only what looks like a signalling object is parsed twice.
  if (text.length < 4096 && text.includes('"signalling"')) {
    try {
      const parsed = SignallingSchema.safeParse(JSON.parse(text));
      if (parsed.success) {
        return { kind: "signalling", type: parsed.data.message.type, message: parsed.data.message };
      }
    } catch { /* not JSON: RTVI's parser says so */ }
  }
  return { kind: "app", text };
}

/** The data-channel message that asks the other end to renegotiate. */
export function renegotiateMessage(): string {
  return JSON.stringify({ type: "signalling", message: { type: "renegotiate" } });
}

/** Reads an answer's JSON: the answer, or what is wrong with it. */
export function readAnswer(body: unknown): { ok: true; answer: Answer } | {
  ok: false;
  message: string;
} {
  const parsed = AnswerSchema.safeParse(body);
  if (parsed.success) return { ok: true, answer: parsed.data };
  return { ok: false, message: `not a SmallWebRTC answer (${issues(parsed.error)})` };
}

/** One media section of an SDP, as far as the checks need it. */
export interface SdpSection {
  media: string;
  port: number;
  /** `rtpmap` names by payload type, lower case (`opus/48000/2`). */
  codecs: Map<number, string>;
  direction: "sendrecv" | "sendonly" | "recvonly" | "inactive";
}

/** The media sections of an SDP (lines of any ending; unknown lines skipped). */
export function sdpSections(sdp: string): SdpSection[] {
  const sections: SdpSection[] = [];
  let current: SdpSection | undefined;
  for (const raw of sdp.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("m=")) {
      const [media = "", port = ""] = line.slice(2).split(" ");
      current = { media, port: Number(port), codecs: new Map(), direction: "sendrecv" };
      sections.push(current);
    } else if (!current) continue;
    else if (line.startsWith("a=rtpmap:")) {
      const m = /^a=rtpmap:(\d+) (\S+)/.exec(line);
      if (m) current.codecs.set(Number(m[1]), m[2]!.toLowerCase());
    } else if (/^a=(sendrecv|sendonly|recvonly|inactive)$/.test(line)) {
      current.direction = line.slice(2) as SdpSection["direction"];
    }
  }
  return sections;
}

/**
 * Why a call cannot run on `answer`, if it cannot: no audio section, audio refused
 * (port 0) or not both ways, no Opus among its codecs, or (with `dataChannel`) no
 * data channel. The message names what was missing.
 */
export function answerProblem(
  answer: string,
  options: { dataChannel?: boolean } = {},
): string | undefined {
  const sections = sdpSections(answer);
  const audio = sections.find((s) => s.media === "audio");
  if (!audio) return "the answer has no audio section";
  if (audio.port === 0) return "the answer refused the audio (port 0)";
  if (audio.direction !== "sendrecv") {
    return `the answer's audio is ${audio.direction}, not both ways (sendrecv)`;
  }
  const names = [...audio.codecs.values()];
  if (!names.some((n) => n.startsWith("opus/48000"))) {
    return `no common codec: the answer's audio offers ${
      names.length > 0 ? names.join(", ") : "no codec"
    }, callbench speaks Opus (opus/48000/2)`;
  }
  if (options.dataChannel) {
    const app = sections.find((s) => s.media === "application");
    if (!app || app.port === 0) return "the answer has no data channel (m=application)";
  }
  return undefined;
}
