/**
 * The navigator agent (`--agent navigator`): a deterministic outbound caller that
 * gets through IVR menus, holds, screeners and voicemail boxes by listening, as a
 * careful person would. It learns its task from its userdata only:
 *
 * - `goal` (text or list): words that pick a menu option ("appointments" picks
 *   "For appointments, press 1");
 * - any field holding digits (`account_number: "00417723"`): entered, then `#`,
 *   when a prompt asks to enter a number; the field whose name best matches the
 *   prompt's words is used;
 * - `caller` (who is calling) and `reason` (why, as "to ..." or "about ..."): told
 *   to a screener, and to the person who picks up;
 * - `business` (optional): what to say to the person instead;
 * - `message` (optional): the voicemail message instead of one made from them.
 *
 * It stays silent on hold and through announcements, leaves one short message after
 * a greeting's beep (or its end, when no beep comes), sends it when a box offers a
 * menu, hangs up on a number that is not in service, and says goodbye and hangs up
 * once the person has answered its business.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
  Voice,
} from "../bridge/call.ts";
import { afterSaid } from "../speech/utterance.ts";

/** How long it waits after a greeting for a beep before it speaks anyway. */
export const BEEP_WAIT_MS = 1500;
/** The pause after a beep before the message starts. */
const AFTER_BEEP_MS = 400;
/** After a message, how long it waits for the box to do something before hanging up. */
const AFTER_MESSAGE_MS = 15_000;
/** When the far end says goodbye, how long it leaves for the far end to hang up first. */
const GOODBYE_GRACE_MS = 1000;

const UNAVAILABLE =
  /not in service|no longer in service|cannot be completed|has been disconnected|cannot take calls|is not reachable/;
const VOICEMAIL = /leave (?:a |your )?message|after the (?:beep|tone)|voice ?mail|mailbox/;
const SCREENER =
  /who(?:'s| is) calling|may i ask who|what is (?:this|the call|your call) (?:regarding|about)|reason for (?:your|the) call|state your name/;
const HOLD =
  /please hold|hold the line|one moment|connect(?:ing)? you|transfer(?:ring)? you|please wait/;
const ENTER = /\b(?:enter|type|key in)\b/;
const GOODBYE = /\bgood ?bye\b/;

const KEY_WORDS: Record<string, string> = {
  zero: "0",
  one: "1",
  two: "2",
  three: "3",
  four: "4",
  five: "5",
  six: "6",
  seven: "7",
  eight: "8",
  nine: "9",
  star: "*",
  pound: "#",
  hash: "#",
};
const KEY = String.raw`([0-9*#]|zero|one|two|three|four|five|six|seven|eight|nine|star|pound|hash)`;
const OPTION_FIRST = new RegExp(
  String.raw`\b(?:for|to)\s+(.+?),?\s+(?:please\s+)?press\s+${KEY}\b`,
  "i",
);
const KEY_FIRST = new RegExp(String.raw`\bpress\s+${KEY}\s+(?:for|to)\s+(.+)`, "i");

const STOPWORDS = new Set(
  "a an the to for of my your our and or with about on in at please if you would like want speak talk this that is are be"
    .split(" "),
);

/** A menu option heard in a prompt: what it is for, and its key. */
export interface MenuOption {
  label: string;
  key: string;
}

/** The options a prompt offers, in the order it says them. */
export function menuOptions(prompt: string): MenuOption[] {
  const out: MenuOption[] = [];
  for (const sentence of prompt.split(/[.;!?]+/)) {
    const a = OPTION_FIRST.exec(sentence);
    if (a) {
      out.push({ label: a[1]!.trim(), key: _key(a[2]!) });
      continue;
    }
    const b = KEY_FIRST.exec(sentence);
    if (b) out.push({ label: b[2]!.trim(), key: _key(b[1]!) });
  }
  return out;
}

/** The option whose words best match the goal's (ties: the first said); none if no word matches. */
export function pickOption(options: MenuOption[], goal: string): MenuOption | undefined {
  const want = _words(goal);
  let best: MenuOption | undefined;
  let bestScore = 0;
  for (const o of options) {
    const have = _words(o.label);
    const score = want.filter((w) => have.some((h) => _sameWord(w, h))).length;
    if (score > bestScore) {
      best = o;
      bestScore = score;
    }
  }
  return best;
}

export class NavigatorAgent implements Participant {
  readonly info: ParticipantInfo = { kind: "navigator" };
  #line?: CallLine;
  #userdata: Record<string, unknown> = {};
  #ended = false;
  #businessStated = false;
  #voicemail: "none" | "awaiting_beep" | "message_left" = "none";
  readonly #timers = new Set<() => void>();

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#userdata = setup.userdata ?? {};
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (this.#ended) return;
    if (event.type === "hangup") {
      this.#ended = true;
      this.#clearTimers();
    } else if (event.type === "beep") {
      if (this.#voicemail === "awaiting_beep") {
        this.#clearTimers();
        this.#after(AFTER_BEEP_MS, () => this.#leaveMessage());
      }
    } else if (event.type === "speech") {
      this.#heard(event.text, event.voice);
    }
  }

  close(): Promise<void> {
    this.#ended = true;
    this.#clearTimers();
    return Promise.resolve();
  }

  #heard(text: string, voice: Voice | undefined): void {
    const t = text.toLowerCase();
    if (UNAVAILABLE.test(t)) return this.#hangUp();
    if (this.#voicemail === "message_left") {
      const send = menuOptions(text).find((o) => /\bsend\b/i.test(o.label));
      if (send) {
        this.#clearTimers();
        this.#press(send.key);
        this.#after(AFTER_MESSAGE_MS, () => this.#hangUp());
      } else if (GOODBYE.test(t)) this.#after(GOODBYE_GRACE_MS, () => this.#hangUp());
      return;
    }
    if (this.#voicemail === "awaiting_beep") return;
    if (VOICEMAIL.test(t)) {
      this.#voicemail = "awaiting_beep";
      this.#after(BEEP_WAIT_MS, () => this.#leaveMessage());
      return;
    }
    if (ENTER.test(t)) {
      const digits = this.#digitsFor(t);
      if (digits) return this.#press(`${digits}#`);
    }
    const options = menuOptions(text);
    if (options.length > 0) {
      const pick = pickOption(options, this.#goal());
      if (pick) this.#press(pick.key);
      return; // nothing fits: let the menu play again
    }
    if (SCREENER.test(t)) {
      this.#say(`This is ${this.#caller()}, calling ${this.#reason()}.`);
      return;
    }
    if (HOLD.test(t)) return;
    if (voice !== "MACHINE") {
      if (!this.#businessStated) {
        this.#businessStated = true;
        this.#say(this.#business());
        return;
      }
      return this.#sayThenHangUp("Thank you, goodbye.");
    }
    if (GOODBYE.test(t)) this.#after(GOODBYE_GRACE_MS, () => this.#hangUp());
  }

  #leaveMessage(): void {
    if (this.#voicemail !== "awaiting_beep") return;
    this.#voicemail = "message_left";
    const message = _text(this.#userdata.message) ??
      `Hello, this is ${this.#caller()}, calling ${this.#reason()}. Please call us back. Thank you.`;
    this.#say(message, () => this.#after(AFTER_MESSAGE_MS, () => this.#hangUp()));
  }

  #goal(): string {
    const g = this.#userdata.goal;
    return Array.isArray(g) ? g.map(String).join(" ") : _text(g) ?? "";
  }

  #caller(): string {
    return _text(this.#userdata.caller) ?? _text(this.#userdata.name) ?? "an automated assistant";
  }

  #reason(): string {
    return _text(this.#userdata.reason) ?? "about your account";
  }

  #business(): string {
    return _text(this.#userdata.business) ??
      `Hello, this is ${this.#caller()}. I'm calling ${this.#reason()}.`;
  }

  /** The userdata digits whose field name best matches the prompt's words. */
  #digitsFor(prompt: string): string | undefined {
    const words = _words(prompt);
    let best: string | undefined;
    let bestScore = -1;
    for (const [key, value] of Object.entries(this.#userdata)) {
      const digits = typeof value === "number" && Number.isInteger(value) && value >= 0
        ? String(value)
        : typeof value === "string" && /^\d+$/.test(value)
        ? value
        : undefined;
      if (digits === undefined) continue;
      const name = _words(key.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " "));
      const score = name.filter((n) => words.some((w) => _sameWord(n, w))).length;
      if (score > bestScore) {
        best = digits;
        bestScore = score;
      }
    }
    return best;
  }

  /** Says `text`; `then` runs once the words are out. */
  #say(text: string, then?: () => void): void {
    const said = this.#line?.say(text);
    if (!then) return;
    const timer = (ms: number, fn: () => void) => {
      this.#after(ms, fn);
      return () => {};
    };
    afterSaid(said, timer, text, () => {
      if (!this.#ended) then();
    });
  }

  #sayThenHangUp(text: string): void {
    // Hang up one zero-delay step after the words are out, once the bridge has
    // delivered them.
    this.#say(text, () => this.#after(0, () => this.#hangUp()));
  }

  #press(keys: string): void {
    this.#line?.press(keys);
  }

  #hangUp(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearTimers();
    this.#line?.hangUp("navigator done");
  }

  #after(ms: number, fn: () => void): void {
    if (!this.#line) return;
    const cancel = this.#line.clock.timer(ms, () => {
      this.#timers.delete(cancel);
      if (!this.#ended) fn();
    });
    this.#timers.add(cancel);
  }

  #clearTimers(): void {
    for (const cancel of this.#timers) cancel();
    this.#timers.clear();
  }
}

function _key(word: string): string {
  return KEY_WORDS[word.toLowerCase()] ?? word;
}

function _words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== "" && !STOPWORDS.has(w))
    .map((w) => w.length > 3 ? w.replace(/s$/, "") : w);
}

/** Same word, or one a longer form of the other ("bill", "billing"). */
function _sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short);
}

function _text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}
