/**
 * The scripted caller: deterministic, from the scenario alone. It opens with the
 * scenario's first line, answers requests for the facts it knows, performs the
 * phone steps it is asked to (dual-control domains), says goodbye when offered
 * nothing more, and hangs up if the agent then leaves the line open. With the
 * scenario's needs (`user.needs`) it also states its goal and must-haves when asked
 * what it needs, answers preference questions from its criteria, checks each option
 * offered against its limits (refusing one that breaks a must-have, saying which,
 * and taking the best that meets them all), and says what it does not know.
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
import type { CallerNeeds } from "../scenario/caller_needs.ts";
import { checkOption, chooseOption, offeredOptions, optionName } from "./caller_offer.ts";

export interface ScriptedUserOptions {
  opening?: string;
  /** label -> value, e.g. "Confirmation number" -> "ZK3FFW". */
  knownInfo?: Record<string, string>;
  /** What the caller wants and insists on (the scenario's `user.needs`). */
  needs?: CallerNeeds;
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

/** The agent asks what the caller wants or needs. */
const NEEDS_ASKED =
  /what (?:do|would) you (?:need|want|like)|what are you looking for|what (?:can|may) i (?:do|help)|how (?:can|may) i help|what brings you|tell me (?:more|what)|what (?:are|were) you hoping|(?:any|your) (?:requirements|constraints)/i;

/** The agent asks for the caller's preferences. */
const PREFERENCE_ASKED =
  /prefer|preference|any particular|what time|(?:window|aisle) or|morning or|important to you/i;

/** Words that say nothing of what is asked about. */
const FILLER_WORDS = new Set([
  "your",
  "the",
  "and",
  "for",
  "with",
  "what",
  "that",
  "this",
  "have",
  "would",
  "could",
  "like",
  "know",
  "does",
  "not",
  "don't",
  "remember",
  "please",
  "there",
  "which",
  "will",
  "you",
  "need",
  "want",
  "must",
  "should",
  "from",
  "about",
  "any",
  "are",
  "can",
  "may",
  "tell",
  "give",
]);

function _contentWords(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9']+/).filter((w) =>
    w.length > 3 && !FILLER_WORDS.has(w)
  );
}

export class ScriptedUser implements Participant {
  readonly info: ParticipantInfo = { kind: "scripted" };
  readonly #opts: Required<Omit<ScriptedUserOptions, "bargeIns" | "needs">>;
  readonly #needs: CallerNeeds | undefined;
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
    this.#needs = options.needs;
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
    const offer = this.#onOffer(text);
    if (offer !== undefined) {
      if (offer.filler && ++this.#fillers > this.#opts.patience) {
        return this.#goodbye("I think that's all. Goodbye.");
      }
      line.say(offer.reply);
      return;
    }
    const facts = this.#factsAskedFor(text);
    const parts = facts.map(([label, value]) => `${label}: ${value}.`);
    const needs = this.#needs;
    if (needs && NEEDS_ASKED.test(text)) parts.push(this.#needsText(needs));
    else if (needs && PREFERENCE_ASKED.test(text)) parts.push(this.#preferenceText(needs, text));
    else if (needs && facts.length === 0) parts.push(...this.#unknownAskedFor(needs, text));
    if (parts.length > 0) {
      line.say(parts.join(" "));
      return;
    }
    if (++this.#fillers > this.#opts.patience) return this.#goodbye("I think that's all. Goodbye.");
    line.say("Okay.");
  }

  /**
   * The reply to an offer of options, when the caller has limits to check them against:
   * take the best that meets them all, ask the total when a cost limit is left open, or
   * refuse saying what each breaks and what it needs. Undefined: not an offer to check.
   */
  #onOffer(text: string): { reply: string; filler?: true } | undefined {
    const needs = this.#needs;
    if (!needs) return undefined;
    if (Object.keys(needs.limits).length + Object.keys(needs.preferred).length === 0) {
      return undefined;
    }
    const options = offeredOptions(text);
    if (options.length === 0) return undefined;
    const checks = options.map((o) => checkOption(o, needs.limits));
    const chosen = chooseOption(checks, needs.preferred);
    if (chosen?.costUnknown) {
      return { reply: "What will the total cost be, all-in?", filler: true };
    }
    if (chosen) {
      return {
        reply: checks.length === 1
          ? "Yes, that works for me. Please go ahead."
          : `I'll take ${optionName(chosen.option)}. Please go ahead.`,
      };
    }
    const why = checks.length === 1
      ? `No, that doesn't work for me: ${checks[0]!.breaks.join("; ")}.`
      : `None of those work for me: ${
        checks.map((c) => `${optionName(c.option)}: ${c.breaks.join("; ")}`).join(". ")
      }.`;
    const must = needs.must_have.length ? ` ${needs.must_have.join(" ")}` : "";
    return { reply: `${why}${must} Could you look for another option?` };
  }

  /** Its goal, then its must-haves and nice-to-haves. */
  #needsText(needs: CallerNeeds): string {
    const parts = needs.goal ? [needs.goal] : [];
    if (needs.must_have.length) parts.push(`What I need: ${needs.must_have.join(" ")}`);
    if (needs.nice_to_have.length) parts.push(`I would also like: ${needs.nice_to_have.join(" ")}`);
    return parts.join(" ") || "I need some help with my booking.";
  }

  /** The criteria that share a word with the question, else all of them. */
  #preferenceText(needs: CallerNeeds, question: string): string {
    const criteria = [...needs.must_have, ...needs.nice_to_have];
    if (criteria.length === 0) return "No particular preference.";
    const asked = _contentWords(question);
    const matching = criteria.filter((c) => _contentWords(c).some((w) => asked.includes(w)));
    return (matching.length ? matching : criteria).join(" ");
  }

  /** What it does not know, where the agent asks about it. */
  #unknownAskedFor(needs: CallerNeeds, question: string): string[] {
    if (!/\?|could you|can you|please (?:give|provide|tell)|may i have/i.test(question)) return [];
    const asked = _contentWords(question);
    return needs.unknown.filter((u) => _contentWords(u).some((w) => asked.includes(w)));
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
