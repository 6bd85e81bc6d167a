/**
 * A caller that behaves like one on a real phone (audio calls): it wraps any caller
 * (the scripted one, the LLM one) and acts out the behaviours of
 * `src/speech/behaviour.ts` around what that caller says, at seeded points:
 *
 * - `backchannel`: "mm-hmm", "okay" or "right", 6 dB lower, 30–70% into an agent
 *   utterance of 1.5 s or more whose audio callbench plays; into a remote agent's speech,
 *   whose length is known only when it ends, 0.8–3 s in, if it is still going on;
 * - `filler`: "um" or "uh" inside the caller's utterance (separate utterances back to
 *   back, so the audio has no gap and each one's time is known);
 * - `pause`: an utterance of three words or more split near its middle by 0.5–2 s of silence;
 * - `side`: "Hold on, honey, I'm on the phone."-style speech to someone else, 10 dB
 *   lower, 0.6 s before the utterance;
 * - `late`: the answer 2–4 s after the caller would have given it;
 * - `interrupt`: the caller's own barge-in (what it says over the agent on purpose,
 *   `say`'s `interrupt`, is tagged; the scripted caller's chance comes from this behaviour).
 *
 * Each is said with its `SayAct`, so the bridge records it as a caller event with its
 * times. Every chance is drawn whether or not it is used, so one behaviour's rate does
 * not move another's points.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
  SayAct,
} from "../bridge/call.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import type { SaidUtterance } from "../speech/utterance.ts";
import { LaterSaid } from "./later_said.ts";
import { behaviourConfig, type CallerBehaviour } from "../speech/behaviour.ts";

/** What the caller says for each behaviour (one picked per time, seeded). */
export const BACKCHANNELS = ["Mm-hmm.", "Okay.", "Right."] as const;
export const FILLERS = ["Um,", "Uh,"] as const;
export const SIDE_SPEECH = [
  "Hold on, honey, I'm on the phone.",
  "Just a second, I'm talking to someone.",
  "Not now, I'm on a call.",
] as const;

/** Backchannels and side speech are quieter than the caller's own turns (dB). */
export const BACKCHANNEL_GAIN_DB = -6;
export const SIDE_GAIN_DB = -10;
/** Agent utterances shorter than this get no backchannel, ms. */
export const BACKCHANNEL_MIN_MS = 1500;
/** Into a remote agent's speech still going on, a backchannel comes this far in (ms, seeded). */
export const LIVE_BACKCHANNEL_MS = [800, 3000] as const;
const LIVE_BACKCHANNEL_SPAN_MS = LIVE_BACKCHANNEL_MS[1] - LIVE_BACKCHANNEL_MS[0];
/** The gap between side speech and the caller's utterance, ms. */
export const SIDE_GAP_MS = 600;

interface Part {
  text: string;
  act?: SayAct;
  /** Silence before it, after the part before is out (the first: after now), ms. */
  gapMs: number;
}

/** Wraps a caller with behaviours. */
export class BehavingCaller implements Participant {
  readonly info: ParticipantInfo;
  readonly #inner: Participant;
  readonly #b: CallerBehaviour;
  #rng: () => number = () => 1;
  #line?: CallLine;
  #agentSpeaking = false;
  #agentUtterance = 0;
  /** When the caller's own words queued so far are out (call time). */
  #busyUntil = 0;
  /** The caller's utterances said whose end is not known yet. */
  #unknownOut = 0;
  #over = false;
  /** An utterance is being acted out in parts; what the caller says meanwhile is held. */
  #acting = false;
  #held: (() => void)[] = [];
  readonly flowTrace?: () => Record<string, unknown>;

  constructor(inner: Participant, behaviour: CallerBehaviour) {
    this.#inner = inner;
    this.#b = behaviour;
    this.info = {
      ...inner.info,
      settings: { ...inner.info.settings, behaviour: behaviourConfig(behaviour) },
    };
    if (inner.flowTrace) this.flowTrace = () => inner.flowTrace!();
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    let h = 0x811c9dc5;
    for (const c of `${setup.seed}\nbehaviour`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
    this.#rng = mulberry32(h >>> 0);
    const wrapped: CallLine = { ...line, say: (text, options) => this.#say(text, options) };
    return this.#inner.start(wrapped, setup);
  }

  onEvent(event: CallEvent): void {
    if (event.type === "hangup") this.#over = true;
    if (event.type === "speech_start") {
      this.#agentSpeaking = true;
      this.#maybeBackchannel(event);
    }
    if (event.type === "speech") this.#agentSpeaking = false;
    this.#inner.onEvent(event);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.#rng() * xs.length) % xs.length]!;
  }

  #maybeBackchannel(event: Extract<CallEvent, { type: "speech_start" }>): void {
    const n = ++this.#agentUtterance;
    const roll = this.#rng();
    const into = 0.3 + 0.4 * this.#rng();
    const word = this.#pick(BACKCHANNELS);
    const p = this.#b.backchannel ?? 0;
    const audio = event.audio;
    if (p <= 0 || roll >= p) return;
    // Known audio (callbench plays it): a share of its length. A remote agent's speech is
    // heard as it streams, its length unknown: a seeded point into it, if it goes on.
    let atMs: number;
    if (audio) {
      const ms = (audio.samples.length / audio.channels / audio.sampleRate) * 1000;
      if (ms < BACKCHANNEL_MIN_MS) return;
      atMs = ms * into;
    } else atMs = LIVE_BACKCHANNEL_MS[0] + ((into - 0.3) / 0.4) * LIVE_BACKCHANNEL_SPAN_MS;
    const line = this.#line!;
    line.clock.timer(atMs, () => {
      // Only over the same utterance, still going, and not over the caller's own words.
      if (this.#over || !this.#agentSpeaking || this.#agentUtterance !== n) return;
      if (this.#unknownOut > 0 || this.#busyUntil > line.clock.now()) return;
      this.#track(line.say(word, { act: { kind: "backchannel", gainDb: BACKCHANNEL_GAIN_DB } }));
    });
  }

  #track(said: SaidUtterance | void): SaidUtterance | void {
    if (said?.end !== undefined) this.#busyUntil = Math.max(this.#busyUntil, said.end);
    else if (said) {
      // Its end is not known yet (in synthesis, or waiting for its turn): busy until out.
      // (Busy "until Infinity" was never lowered again: no backchannel after the first
      // synthesized utterance.)
      this.#unknownOut++;
      said.whenOut(() => {
        this.#unknownOut--;
        this.#busyUntil = Math.max(this.#busyUntil, this.#line!.clock.now());
      });
    }
    return said;
  }

  #say(text: string, options?: Parameters<CallLine["say"]>[1]): SaidUtterance | void {
    const line = this.#line!;
    if (this.#acting) {
      // One utterance at a time: what the caller says while one is being acted out
      // (across a pause or a late start) follows it.
      const later = new LaterSaid();
      this.#held.push(() => later.settle(this.#say(text, options)));
      return later;
    }
    if (options?.act || options?.audio) return this.#track(line.say(text, options));
    // A barge-in asked for (the scenario's, or `interrupt`) is the interrupt behaviour;
    // an answer that merely finds the agent talking waits for its turn (turn_taking.ts).
    if (options?.interrupt) {
      return this.#track(line.say(text, { ...options, act: { kind: "interrupt" } }));
    }
    const parts = this.#plan(text);
    if (parts.length === 1 && parts[0]!.gapMs === 0 && !parts[0]!.act) {
      return this.#track(line.say(text, options));
    }
    const last = new LaterSaid();
    this.#busyUntil = Infinity;
    this.#acting = true;
    const done = (said?: SaidUtterance | void) => {
      last.settle(said);
      this.#acting = false;
      this.#busyUntil = 0;
      this.#track(said);
      for (const f of this.#held.splice(0)) f();
    };
    const next = (i: number, since: number) => {
      if (this.#over) return done();
      const part = parts[i]!;
      const act = part.act && (part.act.kind === "pause" || part.act.kind === "late")
        ? { ...part.act, sinceMs: since }
        : part.act;
      const said = line.say(part.text, { ...options, ...(act ? { act } : {}) });
      if (i === parts.length - 1) return done(said);
      const gap = parts[i + 1]!.gapMs;
      if (!said) return done();
      if (gap === 0) return next(i + 1, since); // back to back: queued behind it on the line
      said.whenOut(() => {
        const out = line.clock.now();
        line.clock.timer(gap, () => next(i + 1, out));
      });
    };
    const now = line.clock.now();
    if (parts[0]!.gapMs > 0) line.clock.timer(parts[0]!.gapMs, () => next(0, now));
    else next(0, now);
    return last;
  }

  /** The parts `text` is said in, with every chance drawn in a fixed order. */
  #plan(text: string): Part[] {
    const b = this.#b;
    const r = () => this.#rng();
    const late = { roll: r(), ms: 2000 + Math.floor(2000 * r()) };
    const side = { roll: r(), text: this.#pick(SIDE_SPEECH) };
    const pause = { roll: r(), ms: 500 + Math.floor(1500 * r()) };
    const filler = { roll: r(), at: r(), text: this.#pick(FILLERS) };
    const parts: Part[] = [];
    let lead = 0;
    if (late.roll < (b.late ?? 0)) lead = late.ms;
    if (side.roll < (b.side ?? 0)) {
      parts.push({ text: side.text, act: { kind: "side", gainDb: SIDE_GAIN_DB }, gapMs: lead });
      lead = SIDE_GAP_MS;
    }
    const words = text.split(/\s+/).filter((w) => w !== "");
    let halves: string[][] = [words];
    if (pause.roll < (b.pause ?? 0) && words.length >= 3) {
      // Near the middle, after punctuation when there is some.
      const mid = Math.floor(words.length / 2);
      let cut = mid;
      for (let d = 0; d < mid - 1; d++) {
        if (/[,.;:]$/.test(words[mid - 1 - d]!)) {
          cut = mid - d;
          break;
        }
        if (/[,.;:]$/.test(words[mid - 1 + d] ?? "")) {
          cut = mid + d;
          break;
        }
      }
      halves = [words.slice(0, cut), words.slice(cut)];
    }
    const first = halves[0]!;
    // Inside the utterance: after its first word at the earliest, so it needs two.
    const fillerAt = filler.roll < (b.filler ?? 0) && first.length >= 2
      ? 1 + Math.floor(filler.at * (first.length - 1))
      : -1;
    const wasLate = lead > 0 && parts.length === 0;
    halves.forEach((h, k) => {
      const gapMs = k === 0 ? lead : pause.ms;
      const act: SayAct | undefined = k === 1
        ? { kind: "pause" }
        : wasLate
        ? { kind: "late" }
        : undefined;
      if (k === 0 && fillerAt > 0) {
        parts.push({ text: h.slice(0, fillerAt).join(" "), ...(act ? { act } : {}), gapMs });
        parts.push({ text: filler.text, act: { kind: "filler" }, gapMs: 0 });
        if (fillerAt < h.length) parts.push({ text: h.slice(fillerAt).join(" "), gapMs: 0 });
        return;
      }
      parts.push({ text: h.join(" "), ...(act ? { act } : {}), gapMs });
    });
    return parts.length > 0 ? parts : [{ text, gapMs: 0 }];
  }
}
