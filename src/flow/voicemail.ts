/**
 * `livekit/voicemail` (flows.md "Built-ins"): the one voicemail box. Each call draws
 * its box from the trial's seed (beep or not, 2 to 5 s of silence ending a
 * recording, a send-or-re-record menu or not), so repeated trials show how an agent
 * copes with different boxes.
 *
 * A recording starts after the beep (or the greeting). It ends after the drawn
 * silence once the agent has spoken, after 60 s, or on `#`; 10 s with no speech
 * hangs up with no message. An agent already talking when the recording starts is
 * speaking into it (its words from that moment on are recorded). The menu plays at
 * most three times: `1` sends, `2` records again (the earlier take is discarded), any
 * other key plays it again, and hanging up during it keeps the message. Without a
 * menu, a finished recording is sent and the box hangs up.
 *
 * The box hears an utterance's words when it ends, so an utterance cut by the end of
 * a recording (60 s, `#`) adds the words said before that moment once it is over;
 * without a menu, the box waits for them before it hangs up. `sent` and `kept` need
 * words: a take with none is `no_message`, whatever the box did next.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Clock } from "../bridge/call.ts";
import { spokenPrefix, textDurationMs } from "../speech/utterance.ts";
import type { FlowEndReason, VoicemailBox, VoicemailTake } from "./trace.ts";

export const NO_SPEECH_MS = 10_000;
export const MAX_RECORDING_MS = 60_000;
/** How long the menu waits for a key before it plays again. */
export const MENU_WAIT_MS = 5_000;
/** The three-plays rule of nodes with routes, applied to the menu. */
export const MENU_PLAYS = 3;

export const MENU_PROMPT = "To send this message, press 1. To re-record, press 2.";
export const SENT_PROMPT = "Your message has been sent. Goodbye.";

/** The greeting of a box that is the scenario's start (no node's `say` greeted). */
export function genericGreeting(box: VoicemailBox): string {
  return "The person you are calling is not available. " +
    (box.beep ? "Please leave a message after the tone." : "Please leave a message.");
}

/** The box of a trial: a pure function of its seed. */
export function drawVoicemailBox(seed: string): VoicemailBox {
  const h = createHash("sha256").update(`livekit/voicemail:${seed}`).digest();
  return { beep: (h[0]! & 1) === 1, silence_wait_s: 2 + (h[1]! % 4), menu: (h[2]! & 1) === 1 };
}

export type VoicemailOutcome = "sent" | "kept" | "no_message";

/** What the box needs from the far end that hosts it. */
export interface VoicemailHost {
  readonly clock: Clock;
  /** Speak in the MACHINE voice; `onEnd` once the words are out. */
  say(text: string, onEnd: () => void): void;
  /** Stop speaking (a key cut the menu off). */
  cutOff(): void;
  beep(): void;
  /** The box is done: end the call. */
  hangUp(reason: FlowEndReason): void;
}

/** `sealing`: the recording is over, the words of an utterance it cut are awaited. */
type Phase = "greeting" | "recording" | "sealing" | "menu" | "closing" | "done";

/** One call's visit to the box. */
export class VoicemailSession {
  readonly box: VoicemailBox;
  readonly #host: VoicemailHost;
  #phase: Phase = "greeting";
  readonly #takes: VoicemailTake[] = [];
  /** The take being recorded. */
  #take?: { parts: string[]; start: number };
  #outcome?: VoicemailOutcome;
  #menuPlays = 0;
  #menuPlaying = false;
  #agentSpeechStart?: number;
  readonly #timers = new Map<string, () => void>();

  constructor(box: VoicemailBox, host: VoicemailHost) {
    this.box = box;
    this.#host = host;
  }

  /** Enter the box; `greet` plays the generic greeting first. */
  begin(greet: boolean): void {
    if (greet) this.#host.say(genericGreeting(this.box), () => this.#record());
    else this.#record();
  }

  /** The agent began an utterance at `at` (before the box was entered, possibly). */
  agentSpeechStart(at: number = this.#now()): void {
    this.#agentSpeechStart = at;
    this.#clear("no_speech");
    this.#clear("silence");
    this.#clear("menu_wait");
  }

  agentSpeech(text: string): void {
    const end = this.#now();
    const start = this.#agentSpeechStart ?? end - textDurationMs(text);
    this.#agentSpeechStart = undefined;
    // An utterance that spans the end of the last take (60 s, `#`) finishes it.
    const last = this.#takes.at(-1);
    if (last && start < last.end_ms && this.#phase !== "recording") {
      last.transcript = _join(
        last.transcript,
        _wordsBetween(text, start, last.start_ms, last.end_ms),
      );
    }
    if (this.#phase === "recording" && this.#take) {
      const words = _wordsBetween(text, start, this.#take.start, end);
      if (words !== "") this.#take.parts.push(words);
      this.#set("silence", this.box.silence_wait_s * 1000, () => this.#endRecording());
    } else if (this.#phase === "sealing") {
      this.#finish("sent");
    } else if (this.#phase === "menu" && !this.#menuPlaying) {
      this.#waitForMenuKey();
    }
  }

  key(k: string): void {
    if (this.#phase === "recording" && k === "#") {
      this.#endRecording();
    } else if (this.#phase === "menu") {
      this.#host.cutOff();
      this.#menuPlaying = false;
      this.#clear("menu_wait");
      if (k === "1") this.#send();
      else if (k === "2") this.#record();
      else this.#playMenu();
    }
  }

  /** The call ended (whoever ended it): settle the outcome. */
  close(): void {
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
    if (this.#outcome !== undefined) return;
    if (this.#phase === "recording" && this.#take) {
      const transcript = this.#take.parts.join(" ");
      this.#takes.push({ transcript, start_ms: this.#take.start, end_ms: this.#now() });
      this.#take = undefined;
      this.#outcome = transcript !== "" ? "kept" : "no_message";
    } else if (this.#phase === "sealing") {
      this.#outcome = "sent"; // the words in flight are lost with the line
    } else if (this.#phase === "menu") {
      this.#outcome = "kept";
    } else {
      this.#outcome = "no_message";
    }
    this.#phase = "done";
  }

  /** The trace's `voicemail` entry. */
  trace(): VoicemailBox & { takes: VoicemailTake[]; outcome: VoicemailOutcome } {
    const outcome = this.#outcome ?? (this.#phase === "menu" ? "kept" : "no_message");
    // The message is the last take (a re-record discards the earlier one).
    const words = (this.#takes.at(-1)?.transcript ?? "") !== "";
    return {
      ...this.box,
      takes: this.#takes.map((t) => ({ ...t })),
      outcome: words ? outcome : "no_message",
    };
  }

  #record(): void {
    if (this.box.beep) this.#host.beep();
    this.#phase = "recording";
    this.#take = { parts: [], start: this.#now() };
    this.#set("max", MAX_RECORDING_MS, () => this.#endRecording());
    if (this.#agentSpeechStart === undefined) {
      this.#set("no_speech", NO_SPEECH_MS, () => this.#endRecording());
    }
  }

  #endRecording(): void {
    const take = this.#take;
    if (!take) return;
    this.#clear("max");
    this.#clear("no_speech");
    this.#clear("silence");
    this.#take = undefined;
    const transcript = take.parts.join(" ");
    this.#takes.push({ transcript, start_ms: take.start, end_ms: this.#now() });
    const talking = this.#agentSpeechStart !== undefined;
    if (transcript === "" && !talking) {
      this.#finish("no_message");
    } else if (this.box.menu) {
      this.#playMenu();
    } else if (talking) {
      this.#phase = "sealing"; // hang up once the words cut off are heard
    } else {
      this.#finish("sent");
    }
  }

  #playMenu(): void {
    this.#menuPlays++;
    if (this.#menuPlays > MENU_PLAYS) {
      this.#outcome = "kept";
      this.#phase = "done";
      this.#host.hangUp("visit_limit");
      return;
    }
    this.#phase = "menu";
    this.#menuPlaying = true;
    this.#host.say(MENU_PROMPT, () => {
      this.#menuPlaying = false;
      this.#waitForMenuKey();
    });
  }

  #waitForMenuKey(): void {
    if (this.#agentSpeechStart !== undefined) return; // the agent is talking; wait for it
    this.#set("menu_wait", MENU_WAIT_MS, () => this.#playMenu());
  }

  #send(): void {
    this.#outcome = "sent";
    this.#phase = "closing";
    this.#host.say(SENT_PROMPT, () => {
      this.#phase = "done";
      this.#host.hangUp("voicemail_done");
    });
  }

  #finish(outcome: VoicemailOutcome): void {
    this.#outcome = outcome;
    this.#phase = "done";
    this.#host.hangUp("voicemail_done");
  }

  #now(): number {
    return this.#host.clock.now();
  }

  #set(name: string, ms: number, fn: () => void): void {
    this.#clear(name);
    this.#timers.set(
      name,
      this.#host.clock.timer(ms, () => {
        this.#timers.delete(name);
        fn();
      }),
    );
  }

  #clear(name: string): void {
    this.#timers.get(name)?.();
    this.#timers.delete(name);
  }
}

/** The words of an utterance spoken from `start` that fall between `from` and `to`. */
function _wordsBetween(text: string, start: number, from: number, to: number): string {
  const before = from > start ? spokenPrefix(text, from - start) : "";
  const upTo = spokenPrefix(text, to - start);
  return upTo.slice(before.length).trim();
}

function _join(a: string, b: string): string {
  return a === "" ? b : b === "" ? a : `${a} ${b}`;
}
