/**
 * A test double for hosted participants: it echoes what it hears and acts on
 * commands spoken to it, so tests can drive every CallLine method over the wire.
 *
 * - `tool NAME JSON` calls a tool and says `result: <json>`;
 * - `press KEYS` presses keys; `beep` beeps; `trace` records a trace entry;
 * - `bye` hangs up with reason `done`; `fail` fails with `model_error`;
 * - anything else is echoed as `you said: <text>`, with token usage.
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

export class EchoParticipant implements Participant {
  readonly info: ParticipantInfo = { kind: "echo", model: "echo" };
  readonly events: CallEvent[] = [];
  setup?: CallSetup;
  line?: CallLine;
  closed = false;

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.line = line;
    this.setup = setup;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    this.events.push(event);
    const line = this.line!;
    if (event.type === "call_start" && event.you_speak_first) line.say("Hello, echo here.");
    if (event.type === "dtmf") line.say(`keys ${event.keys}`);
    if (event.type !== "speech") return;
    const text = event.text.trim();
    const tool = /^tool (\S+) (.*)$/.exec(text);
    if (tool) {
      void line.callTool(tool[1]!, JSON.parse(tool[2]!)).then((reply) =>
        line.say(`result: ${JSON.stringify(reply.result)}`)
      );
    } else if (text.startsWith("press ")) {
      line.press(text.slice("press ".length));
    } else if (text === "beep") {
      line.beep();
    } else if (text === "trace") {
      line.trace({ type: "echo", heard: text });
    } else if (text === "bye") {
      line.say("Goodbye.", { voice: "VOICE" });
      line.hangUp("done");
    } else if (text === "fail") {
      line.fail(new ParticipantError("model_error", "the model is down"));
    } else {
      line.say(`you said: ${text}`, { ttftMs: 120 });
      line.usage({ prompt_tokens: 10, completion_tokens: 3 });
    }
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
