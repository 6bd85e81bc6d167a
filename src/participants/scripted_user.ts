/**
 * The scripted caller: deterministic, from the scenario alone. It opens with the
 * scenario's first line, answers requests for the facts it knows, performs the
 * phone steps it is asked to (dual-control domains), says goodbye when offered
 * nothing more, and hangs up if the agent then leaves the line open.
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
import { parsePhoneStep } from "./phone_step.ts";
import { mulberry32 } from "../random/mulberry32.ts";

export interface ScriptedUserOptions {
  opening?: string;
  /** label -> value, e.g. "Confirmation number" -> "ZK3FFW". */
  knownInfo?: Record<string, string>;
  /** How long to wait after saying goodbye before hanging up, ms. */
  hangUpAfterMs?: number;
  /** Filler replies before the caller gives up and says goodbye. */
  patience?: number;
  /**
   * Audio calls: the chance per agent utterance that the caller cuts in ("Sorry, could
   * you say that again?") at a seeded point 0.4-1.2 s into it. Never two in a row.
   */
  bargeIn?: number;
  /**
   * Audio calls: barge-ins the scenario asks for (`user.barge_in`): cut in on the
   * agent's `agentUtterance`-th utterance (from 1), `atMs` into it, if it is still
   * speaking then. Those utterances get no seeded `bargeIn` roll.
   */
  bargeIns?: readonly { agentUtterance: number; atMs: number }[];
}

/** What the scripted caller says when it cuts in. */
export const BARGE_IN_TEXT = "Sorry, could you say that again?";

const GENERIC = new Set(["your", "the", "and", "for", "with", "what", "number", "name", "of", "a"]);

export class ScriptedUser implements Participant {
  readonly info: ParticipantInfo = { kind: "scripted" };
  readonly #opts: Required<Omit<ScriptedUserOptions, "bargeIns">>;
  /** Agent utterance (from 1) -> ms into it, of the scenario's barge-ins. */
  readonly #planned = new Map<number, number>();
  /** The agent's utterances heard beginning so far. */
  #agentUtterances = 0;
  #rng: () => number = () => 1;
  #agentSpeaking = false;
  #cutIn = false;
  #line?: CallLine;
  #opened = false;
  #fillers = 0;
  #leaving = false;
  #over = false;

  constructor(options: ScriptedUserOptions) {
    this.#opts = {
      opening: options.opening ?? "Hi, I need some help, please.",
      knownInfo: options.knownInfo ?? {},
      hangUpAfterMs: options.hangUpAfterMs ?? 10_000,
      patience: options.patience ?? 8,
      bargeIn: options.bargeIn ?? 0,
    };
    for (const b of options.bargeIns ?? []) {
      if (!this.#planned.has(b.agentUtterance)) this.#planned.set(b.agentUtterance, b.atMs);
    }
    const settings: Record<string, unknown> = {};
    if (this.#opts.bargeIn > 0) settings.barge_in = this.#opts.bargeIn;
    if (this.#planned.size > 0) {
      settings.barge_in_at = [...this.#planned].map(([n, ms]) => ({
        agent_utterance: n,
        at_ms: ms,
      }));
    }
    if (Object.keys(settings).length > 0) this.info.settings = settings;
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#rng = mulberry32(parseInt(setup.seed.slice(0, 8), 16) || 1);
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (this.#over) return;
    switch (event.type) {
      case "hangup":
        this.#over = true;
        return;
      case "call_start":
        if (event.you_speak_first) this.#open();
        return;
      case "speech_start":
        this.#agentSpeaking = true;
        this.#maybeBargeIn();
        return;
      case "speech":
        this.#agentSpeaking = false;
        // Cut off by the caller's barge-in: wait for the agent to say it again.
        if (event.interrupted && this.#cutIn) return;
        if (!event.interrupted) this.#cutIn = false;
        void this.#answer(event.text);
        return;
    }
  }

  #maybeBargeIn(): void {
    const n = ++this.#agentUtterances;
    const planned = this.#planned.get(n);
    if (planned !== undefined) return this.#plannedBargeIn(n, planned);
    const p = this.#opts.bargeIn;
    if (p <= 0 || this.#cutIn || this.#leaving) return;
    const roll = this.#rng();
    const delay = 400 + Math.floor(this.#rng() * 800);
    if (roll >= p) return;
    const line = this.#line!;
    line.clock.timer(delay, () => {
      if (this.#over || !this.#agentSpeaking || this.#cutIn) return;
      this.#cutIn = true;
      line.say(BARGE_IN_TEXT, { interrupt: true });
    });
  }

  /** The scenario's barge-in on agent utterance `n`, `atMs` into it (asked for: even on a repeat). */
  #plannedBargeIn(n: number, atMs: number): void {
    if (this.#leaving) return;
    const line = this.#line!;
    line.clock.timer(atMs, () => {
      if (this.#over || this.#leaving || !this.#agentSpeaking || this.#agentUtterances !== n) {
        return;
      }
      this.#cutIn = true;
      line.say(BARGE_IN_TEXT, { interrupt: true });
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #open(): void {
    this.#opened = true;
    this.#line!.say(this.#opts.opening);
  }

  async #answer(text: string): Promise<void> {
    const line = this.#line!;
    const step = parsePhoneStep(text);
    if (step) {
      const reply = await line.callTool(step.tool, step.args);
      line.say(
        reply.ok
          ? `Okay, I did that. ${summarise(reply.result)}`
          : `That did not work: ${summarise(reply.result)}`,
      );
      return;
    }
    if (!this.#opened) return this.#open();
    if (this.#leaving) return;
    if (/anything else|something else|help you with today\?|further assistance/i.test(text)) {
      return this.#goodbye("No, that's everything. Thank you, goodbye.");
    }
    const facts = this.#factsAskedFor(text);
    if (facts.length > 0) {
      line.say(facts.map(([label, value]) => `${label}: ${value}.`).join(" "));
      return;
    }
    if (++this.#fillers > this.#opts.patience) return this.#goodbye("I think that's all. Goodbye.");
    line.say("Okay.");
  }

  #goodbye(text: string): void {
    this.#leaving = true;
    const line = this.#line!;
    line.say(text);
    line.clock.timer(this.#opts.hangUpAfterMs, () => {
      if (!this.#over) line.hangUp("caller said goodbye");
    });
  }

  #factsAskedFor(text: string): [string, string][] {
    const asked = text.toLowerCase();
    return Object.entries(this.#opts.knownInfo).filter(([label]) =>
      label.toLowerCase().split(/[^a-z0-9]+/).some((w) =>
        w.length > 2 && !GENERIC.has(w) && asked.includes(w)
      )
    );
  }
}

function summarise(result: unknown): string {
  const text = typeof result === "string" ? result : JSON.stringify(result);
  return text.length > 300 ? text.slice(0, 297) + "..." : text;
}
