/**
 * A said utterance whose saying is put off: see {@link LaterSaid}.
 *
 * @module
 */
import type { SaidUtterance } from "../speech/utterance.ts";

/**
 * An utterance that is said later (after a pause, a late start, or the caller's turn
 * gap): the speaker is given it now, and learns when its words are out once it is said.
 */
export class LaterSaid implements SaidUtterance {
  #said: SaidUtterance | undefined;
  #settled = false;
  #waiting: { fn: () => void; cancel: () => void; cancelled: boolean }[] = [];

  get end(): number | undefined {
    return this.#said?.end;
  }

  settle(said: SaidUtterance | void): void {
    this.#settled = true;
    this.#said = said ?? undefined;
    for (const w of this.#waiting) {
      if (w.cancelled) continue;
      if (said) w.cancel = said.whenOut(w.fn);
    }
    this.#waiting = [];
  }

  whenOut(fn: () => void): () => void {
    if (this.#said) return this.#said.whenOut(fn);
    if (this.#settled) return () => {};
    const w = { fn, cancel: () => {}, cancelled: false };
    this.#waiting.push(w);
    return () => {
      w.cancelled = true;
      w.cancel();
    };
  }
}
