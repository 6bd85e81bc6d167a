/**
 * The oracle agent: plays the scenario's reference actions as real tool calls, with
 * a short spoken confirmation, asks the caller to do the phone-side steps
 * (dual-control domains), then closes the call. A built-in test agent, so it may
 * know the reference actions; nothing it says reveals them beyond the step it asks
 * the caller to perform.
 *
 * @module
 */
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Participant,
  ParticipantError,
  type ParticipantInfo,
} from "../bridge/call.ts";
import type { ReferenceAction } from "../scenario/scenario.ts";
import { formatPhoneStep } from "./phone_step.ts";

/** What it says first: opening the call, or answering a kick. */
const GREETING = "Thank you for calling. How can I help you today?";

export class OracleAgent implements Participant {
  readonly info: ParticipantInfo = { kind: "oracle" };
  readonly #actions: readonly ReferenceAction[];
  #line?: CallLine;
  #started = false;
  /** It opened the call (it speaks first) or answered the kick with its greeting. */
  #greeted = false;
  #over = false;
  #waiter?: () => void;
  /** What it is saying, until its words are out. */
  #saying: string | undefined;
  /** What the caller cut off, to say again once the caller has finished. */
  #cut: string | undefined;
  #sayingEnd: () => number = () => 0;

  constructor(actions: readonly ReferenceAction[]) {
    this.#actions = actions;
  }

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (event.type === "hangup") {
      this.#over = true;
      this.#waiter?.();
      return;
    }
    if (event.type === "call_start") {
      this.#greeted = event.you_speak_first;
      if (event.you_speak_first) this.#say(GREETING);
    }
    if (
      event.type === "speech_start" && this.#saying !== undefined && event.at < this.#sayingEnd()
    ) {
      // Barge-in: the oracle yields at once and says it again after the caller.
      this.#cut = this.#saying;
      this.#saying = undefined;
      this.#line?.stopSpeaking();
      return;
    }
    if (event.type === "speech" && this.#cut !== undefined) {
      const again = this.#cut;
      this.#cut = undefined;
      this.#say(again);
      return;
    }
    if (event.type === "speech" && event.kick) {
      // A runner's kick is no request: the oracle greets and waits for the caller.
      if (!this.#started && !this.#greeted) {
        this.#greeted = true;
        this.#say(GREETING);
      }
      return;
    }
    if (event.type === "speech") {
      if (!this.#started) {
        this.#started = true;
        // Detached, so it ends in a handler: a failure ends this call, never the process.
        this.#play().catch((e) => this.#failed(e));
      } else {
        const w = this.#waiter;
        this.#waiter = undefined;
        w?.();
      }
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #failed(e: unknown): void {
    this.#over = true;
    const why = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    this.#line?.fail(new ParticipantError("protocol_error", `the oracle agent failed: ${why}`));
  }

  /** Says `text`, remembering it until its words are out (for barge-in). */
  #say(text: string): void {
    const line = this.#line;
    if (!line) return;
    this.#saying = text;
    const said = line.say(text);
    if (!said) {
      this.#saying = undefined; // an untimed line: nothing to cut
      return;
    }
    this.#sayingEnd = () => said.end ?? Infinity;
    said.whenOut(() => {
      if (this.#saying === text) this.#saying = undefined;
    });
  }

  #reply(): Promise<void> {
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  async #play(): Promise<void> {
    const line = this.#line!;
    let pendingConfirmation = false;
    for (const action of this.#actions) {
      if (this.#over) return;
      if (action.side === "user") {
        // One utterance per step: the caller answers each utterance once, and the
        // oracle waits for exactly that answer.
        const done = pendingConfirmation ? "I have taken care of that on my side. " : "";
        pendingConfirmation = false;
        this.#say(done + formatPhoneStep(action.name, action.arguments));
        await this.#reply();
        continue;
      }
      await line.callTool(action.name, action.arguments);
      pendingConfirmation = true;
    }
    if (this.#over) return;
    this.#say(
      pendingConfirmation
        ? "That is all done. Is there anything else I can help you with?"
        : "Is there anything else I can help you with?",
    );
    await this.#reply();
    if (this.#over) return;
    this.#say("Thank you for calling. Goodbye.");
    await line.callTool("end_conversation", {});
  }
}
