/**
 * One TTS cache for a pool's trial Workers (`worker_pool.ts`): each Worker's own cache
 * (`src/speech/tts_cache.ts`) asks the pool on a miss, over its port. The pool's
 * {@link SharedTtsBoard} answers with the audio a Worker made, or names the Worker that
 * makes it: the first to ask. Those that ask while it is being made wait for it. A
 * Worker whose making fails, or that breaks first, hands it to the next one waiting.
 * So a run on N Workers synthesizes each utterance once (paid TTS requests included),
 * and the Workers' TTS engines still work side by side on different utterances.
 *
 * @module
 */
import { type Pcm16, pcm16 } from "../audio/pcm.ts";
import type { SharedTtsStore } from "../speech/tts_cache.ts";

/** Audio as it crosses between threads (structured-cloned). */
export interface SharedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** A Worker's message to the pool: look up an utterance, or give what it made. */
export type TtsToPool =
  | { type: "tts_lookup"; id: number; key: string }
  | { type: "tts_put"; key: string; audio: SharedAudio | null };

/** The pool's answer to a lookup: the audio, or `null` (this Worker makes it). */
export interface TtsFromPool {
  type: "tts_answer";
  id: number;
  audio: SharedAudio | null;
}

/** A Worker's side: its caches' shared store, over the Worker's port. */
export class PortTtsStore implements SharedTtsStore {
  readonly #post: (message: TtsToPool) => void;
  readonly #waiting = new Map<number, (found: Pcm16 | "make") => void>();
  #nextId = 0;

  constructor(post: (message: TtsToPool) => void) {
    this.#post = post;
  }

  lookup(key: string): Promise<Pcm16 | "make"> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#post({ type: "tts_lookup", id, key });
    });
  }

  put(key: string, audio: Pcm16 | undefined): void {
    this.#post({
      type: "tts_put",
      key,
      audio: audio ? { samples: audio.samples, sampleRate: audio.sampleRate } : null,
    });
  }

  /** The pool answered lookup `id`. */
  answer(message: TtsFromPool): void {
    const resolve = this.#waiting.get(message.id);
    if (!resolve) return;
    this.#waiting.delete(message.id);
    resolve(message.audio ? pcm16(message.audio.samples, message.audio.sampleRate) : "make");
  }
}

/** A lookup waiting for an utterance another Worker makes. */
interface Waiter {
  worker: number;
  id: number;
}

/**
 * The pool's side: the utterances the Workers made (bounded in bytes, oldest-used out
 * first) and who makes those being made. `reply(worker, answer)` posts to a Worker.
 */
export class SharedTtsBoard {
  readonly #reply: (worker: number, answer: TtsFromPool) => void;
  readonly #maxBytes: number;
  readonly #done = new Map<string, SharedAudio>();
  readonly #making = new Map<string, { maker: number; waiters: Waiter[] }>();
  #bytes = 0;

  /** `maxBytes`: default 256 MiB of samples, as a Worker's own cache. */
  constructor(reply: (worker: number, answer: TtsFromPool) => void, maxBytes = 256 * 1024 * 1024) {
    this.#reply = reply;
    this.#maxBytes = maxBytes;
  }

  /** Utterances held, and their bytes. */
  get stats(): { entries: number; bytes: number; making: number } {
    return { entries: this.#done.size, bytes: this.#bytes, making: this.#making.size };
  }

  /** A message from Worker `worker`. */
  receive(worker: number, message: TtsToPool): void {
    if (message.type === "tts_lookup") return this.#lookup(worker, message.id, message.key);
    this.#put(worker, message.key, message.audio);
  }

  /** Worker `worker` broke: what it was making goes to the next one waiting for it. */
  release(worker: number): void {
    for (const [key, m] of [...this.#making]) {
      if (m.maker === worker) this.#handOn(key);
      else m.waiters = m.waiters.filter((w) => w.worker !== worker);
    }
  }

  #lookup(worker: number, id: number, key: string): void {
    const done = this.#done.get(key);
    if (done) {
      this.#done.delete(key); // refresh its place in the eviction order
      this.#done.set(key, done);
      return this.#reply(worker, { type: "tts_answer", id, audio: done });
    }
    const making = this.#making.get(key);
    if (making) return void making.waiters.push({ worker, id });
    this.#making.set(key, { maker: worker, waiters: [] });
    this.#reply(worker, { type: "tts_answer", id, audio: null });
  }

  #put(worker: number, key: string, audio: SharedAudio | null): void {
    const making = this.#making.get(key);
    if (!making || making.maker !== worker) return;
    if (!audio) return this.#handOn(key);
    this.#making.delete(key);
    for (const w of making.waiters) this.#reply(w.worker, { type: "tts_answer", id: w.id, audio });
    const size = audio.samples.byteLength;
    if (size > this.#maxBytes) return;
    this.#done.set(key, audio);
    this.#bytes += size;
    for (const [k, v] of this.#done) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#done.delete(k);
      this.#bytes -= v.samples.byteLength;
    }
  }

  /** The maker gave up: the first waiter makes it instead (nothing is kept for a failure). */
  #handOn(key: string): void {
    const making = this.#making.get(key)!;
    const next = making.waiters.shift();
    if (!next) return void this.#making.delete(key);
    making.maker = next.worker;
    this.#reply(next.worker, { type: "tts_answer", id: next.id, audio: null });
  }
}
