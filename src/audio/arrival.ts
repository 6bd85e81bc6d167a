/**
 * Audio placed as it arrived: the frames of one utterance heard over a socket, each with
 * the time it came, laid out on the time line the listener heard them on.
 *
 * Frames that come while the audio before them is still playing (or within
 * `toleranceMs` after it ran out: network jitter) follow it directly. A frame that comes
 * later starts a new stretch after a gap of silence. A stretch that turns out to arrive
 * faster than real time was held up on the way (the listener's own stall, or the
 * network's): it is placed at the earliest time its frames allow (the latest of each
 * frame's arrival less the audio before it in the stretch), never before the audio
 * before it ends. So a gap appears only where the speaker sent nothing.
 *
 * @module
 */

/** One frame of audio and when it arrived (ms on any clock). */
export interface ArrivedFrame {
  samples: Int16Array;
  at: number;
}

/** Default jitter tolerance, ms: later than this after the audio ran out is a gap. */
export const ARRIVAL_TOLERANCE_MS = 40;

/** The frames as heard: the samples with silence in the gaps, and when the first began. */
export function placeArrived(
  frames: readonly ArrivedFrame[],
  sampleRate: number,
  toleranceMs = ARRIVAL_TOLERANCE_MS,
): { samples: Int16Array; startMs: number } | undefined {
  const first = frames.find((f) => f.samples.length > 0);
  if (!first) return undefined;
  const ms = (n: number) => (n * 1000) / sampleRate;
  type Stretch = { start: number; frames: Int16Array[]; length: number; floor: number };
  const stretches: Stretch[] = [];
  let s: Stretch = { start: first.at, frames: [], length: 0, floor: -Infinity };
  stretches.push(s);
  for (const f of frames) {
    if (f.samples.length === 0) continue;
    const end = s.start + ms(s.length);
    if (f.at > end + toleranceMs) {
      s = { start: f.at, frames: [], length: 0, floor: end };
      stretches.push(s);
    } else if (stretches.length > 1) {
      // Held up on the way: as early as this frame allows, not before the audio before.
      s.start = Math.max(s.floor, Math.min(s.start, f.at - ms(s.length)));
    }
    s.frames.push(f.samples);
    s.length += f.samples.length;
  }
  let total = 0;
  const gaps: number[] = [];
  for (let i = 0; i < stretches.length; i++) {
    const prev = stretches[i - 1];
    const gap = prev
      ? Math.max(
        0,
        Math.round(((stretches[i]!.start - prev.start) * sampleRate) / 1000) - prev.length,
      )
      : 0;
    gaps.push(gap);
    total += gap + stretches[i]!.length;
  }
  const out = new Int16Array(total);
  let at = 0;
  for (let i = 0; i < stretches.length; i++) {
    at += gaps[i]!;
    for (const part of stretches[i]!.frames) {
      out.set(part, at);
      at += part.length;
    }
  }
  return { samples: out, startMs: first.at };
}
