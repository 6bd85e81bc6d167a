/**
 * The VAD oracle: the oracle agent (src/participants/oracle.ts) with the turn-taking of a
 * VAD-driven voice bot, so that what a phone line does to such a bot follows from its
 * definition. A built-in test agent for audio calls (`--agent vad-oracle`).
 *
 * It listens to the caller's audio as it would arrive: each caller utterance as the line
 * delivered it (`speech_start`'s audio), and the line's noise between them
 * (`LineAudio.fill`; digital silence on a clean line), cut into 20 ms frames from the
 * utterance's first sample. A frame is voiced when its level is at least
 * {@link VOICED_DBFS}. The caller's turn has ended once the words are in (the utterance
 * is over) and the last {@link HANGOVER_MS} were unvoiced; the agent answers
 * {@link REPLY_MS} after that, as the oracle would have at once. A caller who starts
 * again before the answer continues the turn. Everything else (greeting, tool calls,
 * yielding when the caller cuts in) is the oracle's.
 *
 * So on a line whose noise stays above {@link VOICED_DBFS} for every stretch of
 * {@link HANGOVER_MS} (a noise bed at SNR s sits near −26 − s dBFS; the quietest 20 ms of
 * `noisy-cafe@5` is at −41.4 dBFS), the caller's turn never ends: the agent never answers,
 * and the call stops on the silence limit with nothing done. Where the noise is below it
 * (clean, `phone`, `white@30`), each answer comes {@link REPLY_MS} to {@link REPLY_MS} +
 * {@link HANGOVER_MS} + one frame after the caller's words end ({@link REPLY_MS} +
 * {@link HANGOVER_MS} exactly when the audio is voiced to its last frame).
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../bridge/call.ts";
import { dbfs, type Pcm16, toMono } from "../audio/pcm.ts";
import type { ReferenceAction } from "../scenario/scenario.ts";
import { OracleAgent } from "./oracle.ts";

/** A 20 ms frame at least this loud (dBFS) is voiced. */
export const VOICED_DBFS = -45;
/** This long unvoiced after the caller's words ends the caller's turn (ms). */
export const HANGOVER_MS = 300;
/** The agent answers this long after the caller's turn ended (ms). */
export const REPLY_MS = 500;
/** The VAD's frame (ms). */
export const VAD_FRAME_MS = 20;

/** The caller's utterance being heard. */
interface Heard {
  /** Call time of its first sample. */
  at: number;
  /** Its audio, mono (made so once, not per frame). */
  audio: Pcm16;
  /** Call time the words came in (the utterance is over); unset while it plays. */
  end?: number;
}

export class VadOracleAgent implements Participant {
  readonly info: ParticipantInfo = {
    kind: "vad-oracle",
    settings: {
      voiced_dbfs: VOICED_DBFS,
      hangover_ms: HANGOVER_MS,
      reply_ms: REPLY_MS,
      frame_ms: VAD_FRAME_MS,
    },
  };
  readonly #oracle: OracleAgent;
  #line?: CallLine;
  #over = false;
  #heard?: Heard;
  /** The caller's words of the turn, held until the VAD ends the turn. */
  #held: CallEvent[] = [];
  /** Index of the next frame (from the utterance's first sample) to listen to. */
  #frame = 0;
  /** Call time the last voiced frame ended. */
  #voicedEnd = 0;
  #cancel?: () => void;

  constructor(actions: readonly ReferenceAction[]) {
    this.#oracle = new OracleAgent(actions);
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    await this.#oracle.start(line, setup);
  }

  onEvent(event: CallEvent): void {
    if (event.type === "hangup") {
      this.#over = true;
      this.#stop();
    } else if (event.type === "speech_start" && event.audio) {
      // The caller talks (again): the turn goes on, and a new utterance is heard.
      this.#stop();
      this.#heard = { at: event.at, audio: toMono(event.audio) };
      this.#frame = 0;
      this.#voicedEnd = event.at;
    } else if (event.type === "speech" && !event.kick && this.#heard) {
      this.#held.push(event);
      this.#heard.end = event.at;
      this.#listen();
      return;
    }
    this.#oracle.onEvent(event);
  }

  close(): Promise<void> {
    this.#over = true;
    this.#stop();
    return this.#oracle.close();
  }

  #stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }

  /**
   * Listens frame by frame until the turn ends: every frame already over now at once,
   * then each at its own end.
   */
  #listen(): void {
    const heard = this.#heard;
    const line = this.#line;
    if (!heard || heard.end === undefined || !line || this.#over) return;
    const now = line.clock.now();
    while (true) {
      const frameEnd = heard.at + (this.#frame + 1) * VAD_FRAME_MS;
      if (frameEnd > now) {
        this.#cancel = line.clock.timer(frameEnd - now, () => {
          this.#cancel = undefined;
          this.#listen();
        });
        return;
      }
      if (this.#voiced(heard, this.#frame)) this.#voicedEnd = frameEnd;
      this.#frame++;
      if (frameEnd >= heard.end && frameEnd - this.#voicedEnd >= HANGOVER_MS) break;
    }
    // The turn ended (at the latest frame heard, or when the words came in): answer.
    this.#cancel = line.clock.timer(REPLY_MS, () => {
      this.#cancel = undefined;
      const held = this.#held;
      this.#held = [];
      this.#heard = undefined;
      for (const e of held) this.#oracle.onEvent(e);
    });
  }

  /** Whether frame `k` of what the agent hears from `heard.at` on is voiced. */
  #voiced(heard: Heard, k: number): boolean {
    const mono = heard.audio;
    const rate = mono.sampleRate;
    const n = Math.round((rate * VAD_FRAME_MS) / 1000);
    // The utterance as far as its words came in, then the line's noise.
    const said = Math.min(
      mono.samples.length,
      Math.round(((heard.end! - heard.at) * rate) / 1000),
    );
    const from = k * n;
    const frame = new Int16Array(n);
    const own = Math.max(0, Math.min(n, said - from));
    if (own > 0) frame.set(mono.samples.subarray(from, from + own));
    if (own < n) {
      this.#line?.audio?.fill?.(frame, own, heard.at + ((from + own) * 1000) / rate, rate);
    }
    return dbfs(frame) >= VOICED_DBFS;
  }
}
