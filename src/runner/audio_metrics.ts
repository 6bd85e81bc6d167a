/**
 * What an audio call sounded like, measured from the audio each side sent: seconds
 * sent and received, voice-to-voice latency per agent turn (the caller's end of speech
 * as sent to the agent's start as heard, by energy: `src/audio/energy.ts`; beside the
 * reference's two definitions), time to first audio from the connection, barge-ins
 * with the agent's yield time, silence gaps and talk-over (VAD); and the stereo
 * recording (left user→agent, right agent→user, like the reference's
 * `conversation_log.wav`), each utterance where it was sent or heard. PROTOCOL.md,
 * "Audio measures", defines each figure.
 *
 * @module
 */
import { type AudioBlock, type AudioConfig, SILENCE_GAP_MS } from "./audio_block.ts";
import type { CallOutcome, SentAudio, SentTone } from "../bridge/bridge.ts";
import type { Side } from "../domains/domain.ts";
import { interleave, type Pcm16, pcm16 } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import { SpeechSegmenter, Vad } from "../audio/vad.ts";
import { yieldToRealTime } from "../audio/pacer.ts";
import { speechSpan } from "../audio/energy.ts";
import { encodeWav } from "../audio/wav.ts";
import { ensureFolder, writeNoFollow } from "./out_files.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { keyId } from "./trial_key.ts";
import type { TrialKey } from "./trial_record.ts";

/** The reference's post-hoc turn end offset (reference-harness.md §1.6). */
const REF_END_OFFSET_MS = 300;
/** The caller overlapping the agent by less than this (one frame) is no barge-in. */
const BARGE_IN_MIN_OVERLAP_MS = 20;

type Segment = [number, number];

/** Voiced segments of an utterance's audio, relative to its start, by its samples. */
const segmentCache = new WeakMap<Int16Array, Segment[]>();
/** Speech spans by energy of an utterance's audio, relative to its start (null: none). */
const spanCache = new WeakMap<Int16Array, Segment | null>();

/** Where an utterance's audio was on the line: its wire time when the mapping said. */
function placement(a: SentAudio): { start: number; end: number } {
  const shift = a.sent_ms !== undefined ? a.sent_ms - a.start_ms : 0;
  return { start: a.start_ms + shift, end: a.end_ms + shift };
}

/**
 * Each utterance's speech by energy (`src/audio/energy.ts`), in call time, cut where the
 * utterance was cut off, keyed by its turn's start: the caller's end of speech and the
 * agent's start of speech that latency is measured between.
 */
function energySpans(audio: readonly SentAudio[], side: Side): Map<number, Segment> {
  const out = new Map<number, Segment>();
  for (const a of audio) {
    const pcm = (side === "agent" ? a.heard : undefined) ?? a.sent_audio ?? a.utterance.audio;
    if (a.side !== side || !pcm) continue;
    let rel = spanCache.get(pcm.samples);
    if (rel === undefined) {
      const span = speechSpan(pcm.samples, pcm.sampleRate);
      rel = span ? [span.startMs, span.endMs] : null;
      spanCache.set(pcm.samples, rel);
    }
    if (!rel) continue;
    const { start, end } = placement(a);
    if (start + rel[0] >= end) continue;
    if (start + rel[1] > end) {
      // Cut off inside its speech: its speech ends at the last speech frame before the cut.
      const kept = Math.round(((end - start) * pcm.sampleRate) / 1000);
      const cut = speechSpan(pcm.samples.subarray(0, kept), pcm.sampleRate);
      if (!cut) continue;
      rel = [cut.startMs, cut.endMs];
    }
    out.set(a.start_ms, [start + rel[0], start + rel[1]]);
  }
  return out;
}

/** Voiced segments of one side, in call time, from each utterance's and tone's audio. */
async function voicedSegments(
  audio: readonly SentAudio[],
  tones: readonly SentTone[],
  side: Side,
): Promise<{ segments: Segment[]; byTurnStart: Map<number, Segment[]> }> {
  const vads = new Map<number, Vad>();
  const segments: Segment[] = [];
  const byTurnStart = new Map<number, Segment[]>();
  const run = async (pcm: Pcm16, start: number, end: number) => {
    // Cached utterances share their audio between trials: their segments are worked out once.
    let rel = segmentCache.get(pcm.samples);
    if (!rel) {
      let vad = vads.get(pcm.sampleRate);
      if (!vad) vads.set(pcm.sampleRate, vad = await Vad.create({ sampleRate: pcm.sampleRate }));
      vad.reset();
      const seg = new SpeechSegmenter({ frameMs: vad.frameMs });
      const events = [...seg.push(vad.process(pcm.samples)), ...seg.flush()];
      rel = [];
      let open: number | undefined;
      for (const e of events) {
        if (e.type === "start") open = e.atMs;
        else if (open !== undefined) {
          rel.push([open, e.atMs]);
          open = undefined;
        }
      }
      segmentCache.set(pcm.samples, rel);
    }
    // Cut off at `end`: what was voiced before the cut.
    const out: Segment[] = [];
    for (const [s, e] of rel) {
      if (start + s >= end) break;
      out.push([start + s, Math.min(end, start + e)]);
    }
    return out;
  };
  try {
    for (const a of audio) {
      if (a.side !== side || !a.utterance.audio) continue;
      // Calls still running keep their time while this one's are measured.
      await yieldToRealTime();
      // The caller's timing is the harness's own (its clean audio) where it went out on
      // the wire; the agent's is what callbench heard of it (after the line, both ways).
      const { start, end } = placement(a);
      const s = await run(
        side === "agent" ? a.heard ?? a.utterance.audio : a.utterance.audio,
        start,
        end,
      );
      byTurnStart.set(a.start_ms, s);
      segments.push(...s);
    }
    // Tones are voiced by design (the VAD may pass a pure tone over): their whole length.
    for (const t of tones) {
      if (t.side !== side) continue;
      segments.push([
        t.start_ms,
        t.start_ms + (t.audio.samples.length * 1000) / t.audio.sampleRate,
      ]);
    }
  } finally {
    for (const v of vads.values()) v.free();
  }
  segments.sort((a, b) => a[0] - b[0]);
  return { segments, byTurnStart };
}

function union(segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const [s, e] of [...segments].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

function overlap(a: readonly Segment[], b: readonly Segment[]): number {
  let total = 0;
  const ua = union(a);
  const ub = union(b);
  let i = 0;
  let j = 0;
  while (i < ua.length && j < ub.length) {
    const lo = Math.max(ua[i]![0], ub[j]![0]);
    const hi = Math.min(ua[i]![1], ub[j]![1]);
    if (hi > lo) total += hi - lo;
    if (ua[i]![1] < ub[j]![1]) i++;
    else j++;
  }
  return total;
}

const round = (x: number) => Math.round(x * 10) / 10;

/** Measures an audio call's outcome (`outcome.audio` set). */
export async function measureAudio(outcome: CallOutcome, config: AudioConfig): Promise<AudioBlock> {
  const audio = outcome.audio ?? [];
  const tones = outcome.tones ?? [];
  const agent = await voicedSegments(audio, tones, "agent");
  const user = await voicedSegments(audio, tones, "user");
  const sentS = (side: Side) =>
    (audio.filter((a) => a.side === side).reduce((t, a) => t + (a.end_ms - a.start_ms), 0) +
      tones.filter((t) => t.side === side).reduce(
        (t, x) => t + (x.audio.samples.length * 1000) / x.audio.sampleRate,
        0,
      )) / 1000;
  const agentSent = sentS("agent");
  const userSent = sentS("user");

  const agentSpeech = energySpans(audio, "agent");
  const userSpeech = energySpans(audio, "user");
  const sentAt = new Map(audio.map((a) => [a.start_ms, placement(a)]));
  const turns: AudioBlock["turns"] = [];
  const bargeIns: AudioBlock["barge_ins"] = [];
  /** Start times of agent turns whose audio is the agent's own (received). */
  const receivedAt = new Set(
    audio.filter((a) => a.side === "agent" && a.received).map((a) => a.start_ms),
  );
  const t = outcome.turns;
  let lastUser: number | undefined;
  for (let i = 0; i < t.length; i++) {
    const turn = t[i]!;
    if (turn.speaker === "user") {
      // The caller starting over an agent turn still in progress is a barge-in.
      // Boundaries that touch or overlap by less than a frame are no barge-in.
      const over = t.findIndex((a, k) =>
        k < i && a.speaker === "agent" && a.start_ms < turn.start_ms &&
        (a.end_ms - turn.start_ms >= BARGE_IN_MIN_OVERLAP_MS ||
          (a.interrupted === true && a.end_ms === turn.start_ms))
      );
      if (over >= 0) {
        const a = t[over]!;
        const userSegs = user.byTurnStart.get(turn.start_ms) ?? [];
        const voiced = userSegs[0]?.[0] ?? turn.start_ms;
        const own = receivedAt.has(a.start_ms);
        if (own) {
          // The agent's own audio: it yielded if its speech stopped while the caller
          // was still speaking; the yield is the caller's start of speech to the agent's
          // end of speech in that turn, both by energy as latency is (the VAD's onset and
          // hangover are not the audio's edges; the VAD's where energy finds no speech).
          const agentSegs = agent.byTurnStart.get(a.start_ms) ?? [];
          const lastVoiced = agentSpeech.get(a.start_ms)?.[1] ??
            agentSegs[agentSegs.length - 1]?.[1] ?? a.end_ms;
          const callerSpeech = userSpeech.get(turn.start_ms);
          const onset = callerSpeech?.[0] ?? voiced;
          const callerEnd = callerSpeech?.[1] ?? userSegs[userSegs.length - 1]?.[1] ??
            turn.end_ms;
          bargeIns.push({
            at_ms: round(onset),
            agent_turn: over,
            yielded: lastVoiced < callerEnd,
            yield_ms: round(Math.max(0, lastVoiced - onset)),
            source: "agent_audio",
          });
        } else {
          // Callbench's own playout of a text agent: the caller's onset by energy.
          const onset = userSpeech.get(turn.start_ms)?.[0] ?? voiced;
          bargeIns.push({
            at_ms: round(onset),
            agent_turn: over,
            yielded: a.interrupted === true,
            yield_ms: round(Math.max(0, a.end_ms - onset)),
            source: "harness_playout",
          });
        }
      }
      lastUser = i;
      continue;
    }
    if (lastUser === undefined) continue;
    const u = t[lastUser]!;
    lastUser = undefined;
    // Caller's end: its last speech frame as sent; agent's start: its first as heard.
    const userEnd = userSpeech.get(u.start_ms)?.[1];
    const agentStart = agentSpeech.get(turn.start_ms)?.[0];
    if (userEnd === undefined || agentStart === undefined) continue;
    if (agentStart < userEnd) continue; // spoken over the caller: no response latency
    // The reference's two, on the audio's edges: the caller's last sample sent, the
    // agent's first audio frame heard.
    const userAudioEnd = sentAt.get(u.start_ms)?.end ?? u.end_ms;
    const agentAudioStart = sentAt.get(turn.start_ms)?.start ?? turn.start_ms;
    turns.push({
      turn: i,
      v2v_ms: round(agentStart - userEnd),
      ref_frame_ms: round(agentAudioStart - userAudioEnd),
      ref_segment_ms: round(agentAudioStart - (userAudioEnd - REF_END_OFFSET_MS)),
    });
  }

  // Time to first audio: from the call's connection (after the handshakes) to the agent's
  // first speech by energy (a tone's start, if earlier).
  const connected = outcome.connectedMs ?? 0;
  const firsts = [
    ...agentSpeech.values(),
    ...tones.filter((x) => x.side === "agent").map((x): Segment => [x.start_ms, x.start_ms]),
  ].map((x) => x[0]);
  const firstAgent = firsts.length > 0 ? Math.min(...firsts) : undefined;
  const agentTurns: NonNullable<AudioBlock["agent_turns"]> = [];
  for (const a of audio) {
    if (a.side !== "agent" || !a.utterance.audio) continue;
    const i = t.findIndex((x) => x.speaker === "agent" && x.start_ms === a.start_ms);
    if (i < 0 || t[i]!.text.trim() === "") continue;
    const voiced = (agent.byTurnStart.get(a.start_ms) ?? []).reduce((n, [s, e]) => n + e - s, 0);
    agentTurns.push({
      turn: i,
      voiced_ms: round(voiced),
      source: a.received ? "agent_audio" : "harness_playout",
    });
  }

  const all = union([...agent.segments, ...user.segments]);
  let count = 0;
  let total = 0;
  let max = 0;
  for (let i = 1; i < all.length; i++) {
    const gap = all[i]![0] - all[i - 1]![1];
    max = Math.max(max, gap);
    if (gap >= SILENCE_GAP_MS) {
      count++;
      total += gap;
    }
  }
  return {
    ...config,
    sides: {
      agent: { sent_s: round(agentSent * 1000) / 1000, received_s: round(userSent * 1000) / 1000 },
      user: { sent_s: round(userSent * 1000) / 1000, received_s: round(agentSent * 1000) / 1000 },
    },
    connect_ms: round(connected),
    ttfa_ms: firstAgent !== undefined ? round(firstAgent - connected) : null,
    turns,
    agent_turns: agentTurns,
    barge_ins: bargeIns,
    silence: { count, total_ms: round(total), max_ms: round(max) },
    talk_over_ms: round(overlap(agent.segments, user.segments)),
    tones: tones.map((x) => ({
      side: x.side,
      kind: x.kind,
      at_ms: round(x.start_ms),
      sent: x.keys ?? "beep",
      heard: x.heard,
    })),
  };
}

/**
 * The call as a stereo recording at `sampleRate`: left what the caller sent (user→agent),
 * right what the agent sent (agent→user), each utterance and tone at its call time
 * (cut where it was cut off). An utterance that crossed a line is what its listener
 * heard; `callerFill` (the caller's line noise) fills the left channel's silences.
 */
export function stereoRecording(
  outcome: CallOutcome,
  sampleRate: number,
  callerFill?: (samples: Int16Array, from: number, atMs: number, rate: number) => void,
): Pcm16 {
  const n = Math.ceil((outcome.durationMs * sampleRate) / 1000);
  const left = new Int16Array(n);
  const right = new Int16Array(n);
  callerFill?.(left, 0, 0, sampleRate);
  const put = (side: Side, pcm: Pcm16, start: number, end: number, replace = false) => {
    const samples = pcm.sampleRate === sampleRate
      ? pcm.samples
      : resample(pcm.samples, pcm.sampleRate, sampleRate);
    const track = side === "user" ? left : right;
    const at = Math.round((start * sampleRate) / 1000);
    const len = Math.min(
      samples.length,
      Math.round(((end - start) * sampleRate) / 1000),
      Math.max(0, n - at),
    );
    for (let i = 0; i < len; i++) {
      const v = (replace ? 0 : track[at + i]!) + samples[i]!;
      track[at + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
  };
  for (const a of outcome.audio ?? []) {
    // Heard audio carries the line's noise already: it takes the fill's place.
    const { start, end } = placement(a);
    // The caller's channel is what the agent's wire carried (8 kHz µ-law on a phone wire:
    // the synthesis's high tail is not in it), else what its line let through.
    const sent = a.side === "user" ? a.sent_audio : undefined;
    if (sent ?? a.heard) {
      put(
        a.side,
        (sent ?? a.heard)!,
        start,
        end,
        a.side === "user" && a.heard !== undefined &&
          callerFill !== undefined,
      );
    } else if (a.utterance.audio) put(a.side, a.utterance.audio, start, end);
  }
  for (const t of outcome.tones ?? []) {
    put(
      t.side,
      t.audio,
      t.start_ms,
      t.start_ms + (t.audio.samples.length * 1000) / t.audio.sampleRate,
    );
  }
  return pcm16(interleave(left, right), sampleRate, 2);
}

/** A trial's recording's name under `<out>/audio/` (like its transcript's, `.wav`). */
export function audioFileName(key: TrialKey): string {
  const safe = key.scenario.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 120);
  return `${safe}__t${key.trial}__${sha256Hex(keyId(key)).slice(0, 12)}.wav`;
}

/**
 * Writes the call's stereo recording as `<dir>/<name>.wav`; returns the block's
 * `wav` (relative to the output folder) or `wav_error`. Never throws.
 */
export async function writeRecording(
  outcome: CallOutcome,
  sampleRate: number,
  dir: string,
  key: TrialKey,
  callerFill?: (samples: Int16Array, from: number, atMs: number, rate: number) => void,
): Promise<Pick<AudioBlock, "wav" | "wav_error">> {
  const name = audioFileName(key);
  try {
    await ensureFolder(dir);
  } catch (e) {
    return { wav_error: `Cannot make ${dir}: ${(e as Error).message}` };
  }
  // Other calls' audio may be on the wire: each step of a long recording gives way to it.
  await yieldToRealTime();
  const recording = stereoRecording(outcome, sampleRate, callerFill);
  await yieldToRealTime();
  // Never through a link planted in the folder.
  try {
    await writeNoFollow(`${dir}/${name}`, encodeWav(recording));
    return { wav: `audio/${name}` };
  } catch (e) {
    return { wav_error: `Cannot write WAV ${dir}/${name}: ${(e as Error).message}` };
  }
}
