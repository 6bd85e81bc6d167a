/**
 * A cache of synthesized speech keyed by provider, voice, rate and text, so repeated
 * trials synthesize each utterance once. Requests for an utterance already being
 * synthesized wait for it instead of starting again; failures are not kept. Entries
 * are dropped oldest-used first beyond `maxBytes` of audio.
 *
 * Threads can share what they synthesize: a cache given a {@link SharedTtsStore} (a
 * trial Worker's is its pool, `src/runner/shared_tts.ts`) asks it on a miss, and only
 * the thread the store names makes the utterance; the others wait for it and are given
 * its audio. So a run on several Workers asks a TTS service for each utterance once, as
 * one thread would (`speech_options.ts` shares the caches of remote TTS only).
 *
 * @module
 */
import type { Pcm16 } from "../audio/pcm.ts";
import type { TtsResult } from "./speech.ts";

export interface TtsCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

/** Synthesized audio that other threads share, asked when a thread's own cache misses. */
export interface SharedTtsStore {
  /**
   * The audio for `key` if some thread made it (waiting while one makes it), or
   * `"make"`: this thread makes it, then says what came of it with `put`.
   */
  lookup(key: string): Promise<Pcm16 | "make">;
  /** What this thread made for a key it was told to make (`undefined`: it failed). */
  put(key: string, audio: Pcm16 | undefined): void;
}

let threadStore: SharedTtsStore | undefined;

/** Sets the store this thread's caches may share (a trial Worker's pool). */
export function shareTtsAcrossThreads(store: SharedTtsStore | undefined): void {
  threadStore = store;
}

/** The store this thread's caches may share, if it has one. */
export function threadTtsStore(): SharedTtsStore | undefined {
  return threadStore;
}

/** Synthesized audio by key, bounded in bytes. */
export class TtsCache {
  readonly maxBytes: number;
  readonly #shared: SharedTtsStore | undefined;
  #done = new Map<string, Pcm16>();
  #pending = new Map<string, Promise<TtsResult>>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /**
   * Default bound: 256 MiB of samples (about 2.3 hours at 16 kHz). `shared`: a store
   * other threads share, asked on a miss.
   */
  constructor(maxBytes = 256 * 1024 * 1024, shared?: SharedTtsStore) {
    this.maxBytes = maxBytes;
    this.#shared = shared;
  }

  /** The key for an utterance. */
  static key(parts: { provider: string; voice: string; sampleRate?: number; text: string }) {
    return JSON.stringify([parts.provider, parts.voice, parts.sampleRate ?? 0, parts.text]);
  }

  /** The cached audio for `key`, or the result of `make()` (cached when ok). */
  get(key: string, make: () => Promise<TtsResult>): Promise<TtsResult> {
    const hit = this.#done.get(key);
    if (hit) {
      this.#hits++;
      // Refresh its place in the eviction order.
      this.#done.delete(key);
      this.#done.set(key, hit);
      return Promise.resolve({ ok: true, audio: hit, cached: true });
    }
    const pending = this.#pending.get(key);
    if (pending) {
      this.#hits++;
      return pending.then((r) => (r.ok ? { ...r, cached: true } : r));
    }
    this.#misses++;
    const p = (this.#shared ? this.#fromShared(this.#shared, key, make) : make()).then((r) => {
      this.#pending.delete(key);
      if (r.ok) this.#put(key, r.audio);
      return r;
    });
    this.#pending.set(key, p);
    return p;
  }

  /** Another thread's audio for `key`, or this one's making of it when the store says so. */
  async #fromShared(
    store: SharedTtsStore,
    key: string,
    make: () => Promise<TtsResult>,
  ): Promise<TtsResult> {
    const found = await store.lookup(key);
    if (found !== "make") return { ok: true, audio: found, cached: true };
    let result: TtsResult | undefined;
    try {
      result = await make();
      return result;
    } finally {
      store.put(key, result?.ok ? result.audio : undefined);
    }
  }

  get stats(): TtsCacheStats {
    return { hits: this.#hits, misses: this.#misses, entries: this.#done.size, bytes: this.#bytes };
  }

  #put(key: string, audio: Pcm16): void {
    const size = audio.samples.byteLength;
    if (size > this.maxBytes) return;
    this.#done.set(key, audio);
    this.#bytes += size;
    for (const [k, v] of this.#done) {
      if (this.#bytes <= this.maxBytes) break;
      this.#done.delete(k);
      this.#bytes -= v.samples.byteLength;
    }
  }
}
