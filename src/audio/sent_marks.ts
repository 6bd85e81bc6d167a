/**
 * When queued audio actually went out: a pacer's chunks are on a fixed grid, so an
 * utterance queued between two slots starts at the next one (or inside a chunk, after
 * what was queued before it). This follows a pacer's chunks and tells, for each marked
 * utterance, when its first sample went out: when its chunk was sent (its slot, or later
 * when the pacer caught up after a late timer: not before the chunk left), plus its
 * place in the chunk. So the record can place and measure it where it was on the wire
 * rather than where it was queued. It also tells its slot on the grid (the chunk's due
 * time plus its place in the chunk): from there on the utterance's samples are on the
 * grid, so its end is that slot plus its length however late the first chunk left.
 *
 * @module
 */
import type { PacedChunk } from "./pacer.ts";

/** Follows one pacer: call `queued` with each enqueue, `sent` with each chunk, `cleared` on clear. */
export class SentMarks {
  readonly #rate: number;
  /** Samples queued so far, and sent (or dropped) so far. */
  #queued = 0;
  #sent = 0;
  #marks: { at: number; onSent: (atMs: number, gridMs: number) => void }[] = [];

  constructor(sampleRate: number) {
    this.#rate = sampleRate;
  }

  /**
   * `samples` were enqueued; `onSent` hears the time their first one went out, and its
   * slot on the grid.
   */
  queued(samples: number, onSent?: (atMs: number, gridMs: number) => void): void {
    if (samples === 0) return;
    if (onSent) this.#marks.push({ at: this.#queued, onSent });
    this.#queued += samples;
  }

  /** The pacer sent `chunk` (its audio samples are the next queued ones). */
  sent(chunk: PacedChunk): void {
    const to = this.#sent + chunk.audioSamples;
    while (this.#marks.length > 0 && this.#marks[0]!.at < to) {
      const m = this.#marks.shift()!;
      const offset = ((m.at - this.#sent) * 1000) / this.#rate;
      m.onSent(chunk.sentAt + offset, chunk.dueAt + offset);
    }
    this.#sent = to;
  }

  /** The pacer dropped what was queued: marks not yet sent never will be. */
  cleared(): void {
    this.#marks = [];
    this.#sent = this.#queued;
  }
}
