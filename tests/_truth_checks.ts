/**
 * Checks of a truth call's record against the agent's own log, utterance by utterance:
 * where the stereo WAV puts each caller utterance the agent heard and each reply it sent,
 * and the barge-in onsets it logged. For the truth tests (`voice_truth_repeats_realclock_test.ts`,
 * the conversation generator's).
 *
 * @module
 */
import type { CallOutcome } from "../src/bridge/bridge.ts";
import { stereoRecording } from "../src/runner/audio_metrics.ts";
import type { AudioBlock } from "../src/runner/audio_block.ts";
import { type TruthBargeLog, type TruthReplyLog, truthSpeechEdges } from "./_truth_agent.ts";

const RATE = 16000;

/** A figure against the agent's log: what, and by how much the record errs (ms; NaN: missing). */
export interface Miss {
  what: string;
  errorMs: number;
}

/**
 * The real-clock bound of the truth tests (as `voice_truth_test.ts`'s): the median error
 * within `p50Ms`, every one within `maxMs`, none missing. On this shared machine one
 * figure in a call may err by a stall of the thread the agent shares with callbench.
 */
export function boundMisses(all: readonly Miss[], p50Ms = 20, maxMs = 40): Miss[] {
  const missing = all.filter((m) => Number.isNaN(m.errorMs));
  const sorted = all.filter((m) => !Number.isNaN(m.errorMs)).map((m) => Math.abs(m.errorMs))
    .sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const out = [...missing, ...all.filter((m) => Math.abs(m.errorMs) > maxMs)];
  if (p50 > p50Ms) out.push({ what: `median error ${p50.toFixed(1)} ms`, errorMs: p50 });
  return out;
}

/** The WAV's two channels, apart. */
function channels(out: CallOutcome): { left: Int16Array; right: Int16Array } {
  const wav = stereoRecording(out, RATE);
  const frames = wav.samples.length / 2;
  const left = new Int16Array(frames);
  const right = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    left[i] = wav.samples[2 * i]!;
    right[i] = wav.samples[2 * i + 1]!;
  }
  return { left, right };
}

/** The speech start (and end) in `track` within `[fromMs, toMs)` of call time, by the truth's definition. */
function edgesIn(track: Int16Array, fromMs: number, toMs: number) {
  const from = Math.max(0, Math.round((fromMs * RATE) / 1000));
  const to = Math.min(track.length, Math.round((toMs * RATE) / 1000));
  if (to <= from) return undefined;
  const e = truthSpeechEdges(track.subarray(from, to), RATE);
  return e && { startMs: (from * 1000) / RATE + e.startMs, endMs: (from * 1000) / RATE + e.endMs };
}

/**
 * Where the WAV puts every caller utterance the agent heard: in the WAV's caller channel where the agent
 * heard it (start and end), and every reply's speech in the agent channel where the agent
 * sent it; `origin` is the `performance.now()` of call time zero. A window of `windowMs`
 * either side (less than the gap between two utterances of one side).
 */
export function wavMisses(
  out: CallOutcome,
  origin: number,
  heard: readonly { startAt: number; endAt: number }[],
  replies: readonly TruthReplyLog[],
  windowMs = 250,
): Miss[] {
  const { left, right } = channels(out);
  const misses: Miss[] = [];
  heard.forEach((h, i) => {
    const start = h.startAt - origin;
    const end = h.endAt - origin;
    const e = edgesIn(left, start - windowMs, end + windowMs);
    if (!e) return misses.push({ what: `caller utterance ${i + 1} not in the WAV`, errorMs: NaN });
    misses.push({
      what: `caller utterance ${i + 1}: WAV ${e.startMs.toFixed(0)}-${
        e.endMs.toFixed(0)
      } ms, agent heard ${start.toFixed(0)}-${end.toFixed(0)}`,
      errorMs: Math.max(Math.abs(e.startMs - start), Math.abs(e.endMs - end)),
    });
  });
  replies.forEach((r) => {
    if (!(r.speechAt > 0)) return;
    const at = r.speechAt - origin;
    const e = edgesIn(right, at - windowMs, at + windowMs);
    if (!e) return misses.push({ what: `reply ${r.answers} not in the WAV`, errorMs: NaN });
    misses.push({
      what: `reply ${r.answers}: WAV ${e.startMs.toFixed(0)} ms, sent ${at.toFixed(0)}`,
      errorMs: e.startMs - at,
    });
  });
  return misses;
}

/** Each v2v the record gives against the agent's own (its speech less the caller's end), in order. */
export function v2vMisses(
  block: AudioBlock,
  replies: readonly TruthReplyLog[],
): Miss[] {
  const answered = replies.filter((r) => r.answers > 0);
  const misses: Miss[] = [];
  if (block.turns.length !== answered.length) {
    misses.push({
      what: `${block.turns.length} turns measured for ${answered.length} replies`,
      errorMs: NaN,
    });
  }
  block.turns.forEach((t, i) => {
    const r = answered[i];
    if (!r) return;
    const truth = r.speechAt - r.callerEndAt;
    misses.push({
      what: `reply ${r.answers}: v2v ${t.v2v_ms} ms, the agent's ${truth.toFixed(1)}`,
      errorMs: t.v2v_ms - truth,
    });
  });
  return misses;
}

/** The record's barge-in onsets and yields against the agent's log (call time via `origin`). */
export function bargeMisses(
  block: AudioBlock,
  produced: readonly TruthBargeLog[],
  origin: number,
): Miss[] {
  const misses: Miss[] = [];
  if (block.barge_ins.length !== produced.length) {
    misses.push({
      what: `${block.barge_ins.length} barge-ins recorded, ${produced.length} produced`,
      errorMs: NaN,
    });
  }
  block.barge_ins.forEach((b, i) => {
    const p = produced[i];
    if (!p) return;
    const onset = p.onsetAt - origin;
    misses.push({
      what: `barge-in ${i + 1}: onset ${b.at_ms} ms, the agent's ${onset.toFixed(1)}`,
      errorMs: b.at_ms - onset,
    });
    if (Number.isFinite(p.cutAt)) {
      misses.push({
        what: `barge-in ${i + 1}: yield ${b.yield_ms} ms, the agent's ${p.yieldMs.toFixed(1)}`,
        errorMs: b.yield_ms - p.yieldMs,
      });
    }
  });
  return misses;
}
