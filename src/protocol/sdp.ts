/**
 * SDP (RFC 4566) offer/answer (RFC 3264) for one audio stream of a phone call: G.711
 * PCMU (payload type 0) or PCMA (8) at 8 kHz in 20 ms packets, and RFC 4733
 * telephone-event on a dynamic payload type (101 by default). {@link parseSdp} reads a
 * description and never throws; {@link buildSdp} writes an offer or an answer;
 * {@link answerOffer} picks the first codec of the offer that we also speak (the
 * offerer's order is its preference), and a description with none is a
 * `no_common_codec` error, which the answering side sends back as 488 Not Acceptable
 * Here. {@link negotiatedFromAnswer} reads what an answer chose.
 *
 * @example
 * ```ts
 * const offer = buildSdp({ address: "127.0.0.1", port: 40000, codecs: ["PCMU", "PCMA"], telephoneEvent: 101, sessionId: 1 });
 * const answer = answerOffer(offer, { address: "127.0.0.1", port: 40002, sessionId: 2 });
 * if (answer.ok) console.log(answer.media.codec); // "PCMU"
 * ```
 *
 * @module
 */

/** The codecs callbench speaks, by their RTP encoding names. */
export type G711Codec = "PCMU" | "PCMA";
/** Static payload types of the G.711 codecs (RFC 3551). */
export const G711_PAYLOAD_TYPES: Readonly<Record<G711Codec, number>> = Object.freeze({
  PCMU: 0,
  PCMA: 8,
});
/** The usual dynamic payload type of telephone-event. */
export const DEFAULT_TELEPHONE_EVENT_PT = 101;
/** Packet time, ms. */
export const SDP_PTIME_MS = 20;
/** Largest description accepted, bytes. */
export const MAX_SDP_BYTES = 16_384;

/** One payload format of a media line. */
export interface SdpFormat {
  payloadType: number;
  /** Encoding name from `a=rtpmap` (or the static name), upper-case; "" when unknown. */
  encoding: string;
  clockRate: number;
}

/** The first audio stream of a description. */
export interface SdpAudio {
  /** Connection address (`c=`, media-level over session-level). */
  address: string;
  port: number;
  /** Formats in the order the `m=` line lists them. */
  formats: SdpFormat[];
  /** `a=ptime`, when given. */
  ptime?: number;
  /** `sendrecv` unless `a=sendonly`/`recvonly`/`inactive` says otherwise. */
  direction: "sendrecv" | "sendonly" | "recvonly" | "inactive";
}

/** A description as read. */
export interface SessionDescription {
  /** `o=` session id, as text. */
  sessionId: string;
  audio: SdpAudio;
}

/** Why a description was refused. */
export type SdpErrorCode = "sdp_malformed" | "sdp_no_audio" | "sdp_too_large" | "no_common_codec";

/** A refused description. */
export interface SdpError {
  code: SdpErrorCode;
  message: string;
}

/** What {@link parseSdp} returns. */
export type SdpParse = { ok: true; sdp: SessionDescription } | { ok: false; error: SdpError };

const STATIC: Record<number, { encoding: string; clockRate: number }> = {
  0: { encoding: "PCMU", clockRate: 8000 },
  8: { encoding: "PCMA", clockRate: 8000 },
};

function fail(code: SdpErrorCode, message: string): { ok: false; error: SdpError } {
  return { ok: false, error: { code, message } };
}

/** Reads a description's first audio stream; never throws. */
export function parseSdp(text: string): SdpParse {
  if (text.length > MAX_SDP_BYTES) {
    return fail("sdp_too_large", `SDP of ${text.length} characters is over ${MAX_SDP_BYTES}`);
  }
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  if (lines[0] !== "v=0") return fail("sdp_malformed", 'SDP does not start with "v=0"');
  let sessionId = "";
  let sessionAddress: string | undefined;
  let audio: (SdpAudio & { rtpmap: Map<number, SdpFormat> }) | undefined;
  let inAudio = false;
  let seenMedia = false;
  for (const [i, line] of lines.entries()) {
    if (!/^[a-z]=/.test(line)) {
      return fail("sdp_malformed", `SDP line ${i + 1} is not "<letter>=<value>": ${snippet(line)}`);
    }
    const type = line[0];
    const value = line.slice(2);
    if (type === "o") {
      sessionId = value.split(" ")[1] ?? "";
    } else if (type === "c") {
      const m = /^IN IP[46] (\S+)/.exec(value);
      if (!m) return fail("sdp_malformed", `SDP connection line not understood: ${snippet(line)}`);
      if (inAudio && audio) audio.address = m[1]!;
      else if (!seenMedia) sessionAddress = m[1]!;
    } else if (type === "m") {
      seenMedia = true;
      inAudio = false;
      const m = /^(\w+) (\d+)(?:\/\d+)? (\S+)((?: \S+)*)$/.exec(value);
      if (!m) return fail("sdp_malformed", `SDP media line not understood: ${snippet(line)}`);
      if (m[1] !== "audio" || audio) continue;
      const port = Number(m[2]);
      if (port > 65535) return fail("sdp_malformed", `SDP media port ${port} is out of range`);
      const pts = m[4]!.trim().split(" ").filter(Boolean);
      if (!m[3]!.startsWith("RTP/") || pts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 127)) {
        return fail(
          "sdp_malformed",
          `SDP audio line is not RTP with payload types: ${snippet(line)}`,
        );
      }
      inAudio = true;
      audio = {
        address: sessionAddress ?? "",
        port,
        formats: pts.map((p) => ({
          payloadType: Number(p),
          encoding: STATIC[Number(p)]?.encoding ?? "",
          clockRate: STATIC[Number(p)]?.clockRate ?? 8000,
        })),
        direction: "sendrecv",
        rtpmap: new Map(),
      };
    } else if (type === "a" && inAudio && audio) {
      const rtpmap = /^rtpmap:(\d+) ([^/\s]+)\/(\d+)/.exec(value);
      if (rtpmap) {
        const f = audio.formats.find((x) => x.payloadType === Number(rtpmap[1]));
        if (f) {
          f.encoding = rtpmap[2]!.toUpperCase();
          f.clockRate = Number(rtpmap[3]);
        }
      } else if (value.startsWith("ptime:")) {
        const ptime = Number(value.slice(6));
        if (Number.isFinite(ptime) && ptime > 0) audio.ptime = ptime;
      } else if (["sendrecv", "sendonly", "recvonly", "inactive"].includes(value)) {
        audio.direction = value as SdpAudio["direction"];
      }
    }
  }
  if (!audio) return fail("sdp_no_audio", "SDP has no audio stream");
  if (!audio.address) return fail("sdp_malformed", "SDP has no connection address for its audio");
  const { rtpmap: _, ...rest } = audio;
  return { ok: true, sdp: { sessionId, audio: rest } };
}

function snippet(line: string): string {
  return JSON.stringify(line.length > 60 ? line.slice(0, 60) + "…" : line);
}

/** What {@link buildSdp} writes. */
export interface SdpBuild {
  address: string;
  port: number;
  /** Audio codecs in order of preference. */
  codecs: readonly G711Codec[];
  /** telephone-event payload type, or omitted for none. */
  telephoneEvent?: number;
  /** `o=` session id. */
  sessionId: number | string;
  /** `o=` version (default 1). */
  version?: number;
  /** Origin user name (default "callbench"). */
  user?: string;
}

/** Writes an audio description (an offer, or an answer with one codec). */
export function buildSdp(b: SdpBuild): string {
  const pts = b.codecs.map((c) => G711_PAYLOAD_TYPES[c]);
  if (b.telephoneEvent !== undefined) pts.push(b.telephoneEvent);
  const lines = [
    "v=0",
    `o=${b.user ?? "callbench"} ${b.sessionId} ${b.version ?? 1} IN IP4 ${b.address}`,
    "s=callbench",
    `c=IN IP4 ${b.address}`,
    "t=0 0",
    `m=audio ${b.port} RTP/AVP ${pts.join(" ")}`,
    ...b.codecs.map((c) => `a=rtpmap:${G711_PAYLOAD_TYPES[c]} ${c}/8000`),
    ...(b.telephoneEvent === undefined
      ? []
      : [`a=rtpmap:${b.telephoneEvent} telephone-event/8000`, `a=fmtp:${b.telephoneEvent} 0-16`]),
    `a=ptime:${SDP_PTIME_MS}`,
    "a=sendrecv",
  ];
  return lines.join("\r\n") + "\r\n";
}

/** The media both sides agreed on. */
export interface NegotiatedMedia {
  codec: G711Codec;
  payloadType: number;
  /** The peer's telephone-event payload type, when it offered or accepted one. */
  telephoneEvent?: number;
  /** Where to send RTP. */
  remoteAddress: string;
  remotePort: number;
}

function pick(
  audio: SdpAudio,
  codecs: readonly G711Codec[],
): { ok: true; media: NegotiatedMedia } | { ok: false; error: SdpError } {
  // Port 0 is a stream turned down (RFC 3264): no datagram can go to it.
  if (audio.port === 0) {
    return fail("sdp_no_audio", "the peer turned the audio stream down (port 0)");
  }
  const chosen = audio.formats.find((f) =>
    f.clockRate === 8000 && (codecs as readonly string[]).includes(f.encoding)
  );
  if (!chosen) {
    const theirs = audio.formats.map((f) => f.encoding || String(f.payloadType)).join(", ");
    return fail(
      "no_common_codec",
      `no common codec: the peer offers ${theirs || "nothing"}, callbench speaks ${
        codecs.join(", ")
      }`,
    );
  }
  const event = audio.formats.find((f) => f.encoding === "TELEPHONE-EVENT" && f.clockRate === 8000);
  return {
    ok: true,
    media: {
      codec: chosen.encoding as G711Codec,
      payloadType: chosen.payloadType,
      ...(event ? { telephoneEvent: event.payloadType } : {}),
      remoteAddress: audio.address,
      remotePort: audio.port,
    },
  };
}

/** Options for {@link answerOffer}. */
export interface AnswerOptions {
  address: string;
  port: number;
  sessionId: number | string;
  /** Codecs we accept (default both, PCMU first when the offer's order ties). */
  codecs?: readonly G711Codec[];
}

/** What {@link answerOffer} returns: the answer's text and the media agreed. */
export type AnswerResult =
  | { ok: true; sdp: string; media: NegotiatedMedia }
  | { ok: false; error: SdpError };

/** Answers an offer: the first offered codec we speak, telephone-event when offered. */
export function answerOffer(offer: string, o: AnswerOptions): AnswerResult {
  const read = parseSdp(offer);
  if (!read.ok) return read;
  const picked = pick(read.sdp.audio, o.codecs ?? ["PCMU", "PCMA"]);
  if (!picked.ok) return picked;
  const sdp = buildSdp({
    address: o.address,
    port: o.port,
    sessionId: o.sessionId,
    codecs: [picked.media.codec],
    ...(picked.media.telephoneEvent === undefined
      ? {}
      : { telephoneEvent: picked.media.telephoneEvent }),
  });
  return { ok: true, sdp, media: picked.media };
}

/** Reads what an answer chose, among the codecs we offered. */
export function negotiatedFromAnswer(
  answer: string,
  offered: readonly G711Codec[] = ["PCMU", "PCMA"],
): { ok: true; media: NegotiatedMedia } | { ok: false; error: SdpError } {
  const read = parseSdp(answer);
  if (!read.ok) return read;
  return pick(read.sdp.audio, offered);
}
