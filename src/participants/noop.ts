/**
 * The noop agent: answers, says goodbye and ends the call without touching the
 * world. A baseline: it passes only where the expected state is the initial one.
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

export class NoopAgent implements Participant {
  readonly info: ParticipantInfo = { kind: "noop" };
  #line?: CallLine;
  #done = false;

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    const opens = event.type === "call_start" && event.you_speak_first;
    if (this.#done || !(opens || event.type === "speech")) return;
    this.#done = true;
    this.#line?.say("Hello, thanks for calling. Goodbye.");
    void this.#line?.callTool("end_conversation", {});
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
