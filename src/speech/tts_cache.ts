/**
 * A cache of synthesized speech keyed by provider, voice, rate and text, so repeated
 * trials synthesize each utterance once. Requests for an utterance already being
 * synthesized wait for it instead of starting again; failures are not kept. Entries
 * are dropped oldest-used first beyond `maxBytes` of audio.
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

/** Synthesized audio by key, bounded in bytes. */
export class TtsCache {
  readonly maxBytes: number;
  #done = new Map<string, Pcm16>();
  #pending = new Map<string, Promise<TtsResult>>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  /** Default bound: 256 MiB of samples (about 2.3 hours at 16 kHz). */
  constructor(maxBytes = 256 * 1024 * 1024) {
    this.maxBytes = maxBytes;
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
    const p = make().then((r) => {
      this.#pending.delete(key);
      if (r.ok) this.#put(key, r.audio);
      return r;
    });
    this.#pending.set(key, p);
    return p;
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
