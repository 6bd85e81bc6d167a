/**
 * A caller that takes turns as a person does (audio calls): it wraps any caller (the
 * scripted one, the LLM one, the behaving one) and puts off what that caller says until
 * the agent's turn is over by its ear.
 *
 * - It answers a seeded gap after the agent's speech stopped (`gap_ms` ± `gap_spread_ms`,
 *   drawn per answer, `src/speech/caller_timing.ts`), never while the agent speaks.
 * - When the agent starts again before the gap is up (a second response chained on, a
 *   long pause inside its turn), the caller holds back, and after the agent's next stop
 *   waits for the end-of-turn silence `eot_ms` instead: the agent has shown it was not done.
 * - Said on purpose over the agent, it speaks at once: a barge-in the scenario or
 *   `interrupt` asks for (`say`'s `interrupt`), a backchannel, the rest of an utterance
 *   after its pause; so is audio a remote caller already said.
 *
 * The rule runs on the call's clock: on the simulated clock the same turns in simulated
 * time as on the real one.
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
import { mulberry32 } from "../random/mulberry32.ts";
import type { SaidUtterance } from "../speech/utterance.ts";
import { type CallerTiming, DEFAULT_CALLER_TIMING } from "../speech/caller_timing.ts";
import { LaterSaid } from "./later_said.ts";

type SayOptions = Parameters<CallLine["say"]>[1];

/** Wraps a caller with a person's turn-taking. */
export class TurnTakingCaller implements Participant {
  readonly info: ParticipantInfo;
  readonly #inner: Participant;
  readonly #t: CallerTiming;
  #rng: () => number = () => 0.5;
  #line?: CallLine;
  #over = false;
  /**
   * The agent's utterances begun and not yet heard whole: a remote agent's next one may be
   * heard starting before the one before is handed over (its turn end known late).
   */
  #agentOpen = 0;
  /** When the agent's speech last stopped (call time). */
  #agentStoppedAt = -Infinity;
  /** The agent started again within the gap: the next wait is the end-of-turn silence. */
  #heldBack = false;
  /** What the caller said that waits for its turn, in order (all of it is said: none is lost). */
  #pending: { text: string; options: SayOptions; later: LaterSaid }[] = [];
  /** The gap drawn for the answer pending. */
  #gapMs: number | undefined;
  #cancel: (() => void) | undefined;
  readonly flowTrace?: () => Record<string, unknown>;

  constructor(inner: Participant, timing: CallerTiming = DEFAULT_CALLER_TIMING) {
    this.#inner = inner;
    this.#t = timing;
    this.info = inner.info;
    if (inner.flowTrace) this.flowTrace = () => inner.flowTrace!();
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    let h = 0x811c9dc5;
    for (const c of `${setup.seed}\nturn-taking`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
    this.#rng = mulberry32(h >>> 0);
    const wrapped: CallLine = { ...line, say: (text, options) => this.#say(text, options) };
    return this.#inner.start(wrapped, setup);
  }

  onEvent(event: CallEvent): void {
    switch (event.type) {
      case "hangup":
        this.#over = true;
        this.#cancel?.();
        this.#cancel = undefined;
        for (const p of this.#pending.splice(0)) p.later.settle(undefined);
        break;
      case "speech_start":
        this.#agentOpen++;
        if (this.#cancel) {
          // The agent goes on: the answer waits for its next stop, and a longer silence.
          this.#cancel();
          this.#cancel = undefined;
          this.#heldBack = true;
        }
        break;
      case "speech": {
        this.#agentOpen = Math.max(0, this.#agentOpen - 1);
        if (this.#agentOpen === 0) this.#agentStoppedAt = this.#line!.clock.now();
        this.#inner.onEvent(event);
        if (this.#pending.length > 0 && !this.#over && this.#agentOpen === 0) this.#schedule();
        return;
      }
    }
    this.#inner.onEvent(event);
  }

  close(): Promise<void> {
    this.#cancel?.();
    return this.#inner.close();
  }

  #say(text: string, options: SayOptions): SaidUtterance | void {
    const line = this.#line!;
    const kind = options?.act?.kind;
    // A pause's second half goes on with the caller's own turn, whoever jumped into the
    // pause: that is what the pause tests.
    const atOnce = options?.audio !== undefined || options?.interrupt === true ||
      kind === "backchannel" || kind === "interrupt" || kind === "pause";
    if (this.#over || (atOnce && this.#pending.length === 0)) return line.say(text, options);
    const later = new LaterSaid();
    this.#pending.push({ text, options, later });
    if (this.#pending.length === 1) {
      // Whole milliseconds, as the rest of a simulated call's times are.
      this.#gapMs = Math.round(this.#t.gap_ms + this.#t.gap_spread_ms * (2 * this.#rng() - 1));
    }
    if (this.#agentOpen === 0 && !this.#cancel) this.#schedule();
    return later;
  }

  /** The pending answer goes out once the agent has been quiet for the gap (or the end-of-turn silence). */
  #schedule(): void {
    const clock = this.#line!.clock;
    const wait = this.#heldBack ? this.#t.eot_ms : this.#gapMs ?? this.#t.gap_ms;
    const due = this.#agentStoppedAt + wait - clock.now();
    this.#cancel?.();
    if (!(due > 0)) return this.#flush();
    this.#cancel = clock.timer(due, () => {
      this.#cancel = undefined;
      if (this.#agentOpen === 0) this.#flush();
    });
  }

  #flush(): void {
    this.#cancel = undefined;
    this.#heldBack = false;
    this.#gapMs = undefined;
    const line = this.#line!;
    for (const p of this.#pending.splice(0)) p.later.settle(line.say(p.text, p.options));
  }
}
