/**
 * The simulated far end of a flow call (flows.md): walks a scenario's nodes as the
 * agent under test speaks and presses keys, plays the built-ins, and keeps the flow
 * trace the trial record stores.
 *
 * Node kinds follow from their fields: `say` + `then` announces; `routes` routes
 * keys (one key at a time when every pattern is one atom, else collected until `#`);
 * `say` + `timeout` holds; `instructions` + `then` screens (answers the agent once);
 * `instructions` alone is a person for the rest of the call. A `timeout` counts the
 * agent's silence from the end of the node's prompt; anything the agent says or
 * presses restarts it. Keys during a routed node's prompt cut the prompt off.
 *
 * `livekit/unavailable` ends as `unavailable` once its announcement has been played in
 * full: the far end hangs up at that instant, and an agent hanging up at the same
 * instant (on hearing the last word, say) does not make it `agent_hangup`, whatever
 * order the two hang-ups reach the line in. Before that instant the hang-up is the
 * agent's.
 *
 * `instructions` speak through a `PersonaSpeaker` when a model is configured, else
 * through a deterministic stand-in: it speaks `say`, acknowledges the agent once,
 * and follows `then`. A person's conversation history is the current node's.
 *
 * @module
 */
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Clock,
  type Participant,
  ParticipantError,
  type ParticipantInfo,
  type SaidUtterance,
  type Voice,
} from "../bridge/call.ts";
import { afterSaid, saidEnd } from "../speech/utterance.ts";
import { InputError } from "../problem/problem.ts";
import { DTMF_KEY } from "../dtmf/keys.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { compileKeyPattern, isSingleKeyPattern } from "../flow/key_pattern.ts";
import type { PersonaSpeaker } from "../flow/persona.ts";
import { type FlowNode, type FlowNodes, FlowNodesSchema, isBuiltIn } from "../flow/schema.ts";
import {
  type FlowEndReason,
  type FlowTrace,
  PERSONA_START,
  type VoicemailBox,
} from "../flow/trace.ts";
import { drawVoicemailBox, VoicemailSession } from "../flow/voicemail.ts";

/** A node with routes plays at most this many times in a call. */
export const VISIT_LIMIT = 3;

export const UNAVAILABLE_PROMPT =
  "The number you have dialed is not in service. Please check the number and try again.";
/** What the stand-in says for a person who has no `say` and picks up. */
export const STAND_IN_OPENING = "Hello?";
export const STAND_IN_SCREENER_ACK = "Thank you. One moment, please.";
export const STAND_IN_PERSON_ACK = "All right, thank you for letting me know. Goodbye.";

export interface FlowCallerOptions {
  /** Speaks `instructions` nodes; without it the deterministic stand-in does. */
  persona?: PersonaSpeaker;
  /** Fixes the voicemail box instead of drawing it from the trial's seed (tests). */
  voicemailBox?: VoicemailBox;
}

type HistoryEntry = { speaker: "agent" | "far_end"; text: string };

interface CompiledRoutes {
  single: boolean;
  routes: { re: RegExp; to: string }[];
}

export class FlowCaller implements Participant {
  readonly info: ParticipantInfo;
  readonly #nodes: FlowNodes;
  readonly #routes = new Map<string, CompiledRoutes>();
  readonly #start: string;
  readonly #userdata?: Record<string, unknown>;
  /** The call's language (the scenario's `user.language`): the persona speaks it. */
  readonly #language?: string;
  readonly #persona?: PersonaSpeaker;
  readonly #box?: VoicemailBox;

  #line?: CallLine;
  #clock?: Clock;
  #seed = "";
  #current?: string;
  readonly #visits = new Map<string, number>();
  readonly #trace: Omit<FlowTrace, "end"> & { end?: FlowTrace["end"] };
  #connected = false;
  #ended = false;

  #speaking = false;
  #cancelSpeech?: () => void;
  #cancelTimeout?: () => void;
  /** When the agent's utterance in progress began, if it is speaking. */
  #agentSpeakingSince?: number;
  #collected = "";
  /** Bumped on every node change, so late persona replies are dropped. */
  #epoch = 0;
  #history: HistoryEntry[] = [];
  #unanswered = false;
  #replying = false;
  #acknowledged = false;
  #answered = false;
  #voicemail?: VoicemailSession;
  /** When `livekit/unavailable`'s announcement will have been played in full. */
  #unavailableUntil?: () => number;

  constructor(scenario: Scenario, options: FlowCallerOptions = {}) {
    const where = `scenario "${scenario.name}"`;
    const parsed = FlowNodesSchema.safeParse(scenario.flow ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError({
        where,
        field: ["flow", ...issue.path].join("."),
        message: issue.message,
      });
    }
    const nodes: FlowNodes = { ...parsed.data };
    const start = scenario.user.start;
    if (start === undefined) {
      if (scenario.user.instructions === undefined) {
        throw new InputError({
          where,
          field: "user.start",
          message: 'a flow scenario needs "start" or "instructions"',
        });
      }
      nodes[PERSONA_START] = { instructions: scenario.user.instructions, speaker: "VOICE" };
    }
    this.#start = start ?? PERSONA_START;
    for (const [name, node] of Object.entries(nodes)) {
      for (const target of [node.then, node.timeout?.to, ...(node.routes ?? []).map((r) => r.to)]) {
        if (target !== undefined && !isBuiltIn(target) && !(target in nodes)) {
          throw new InputError({
            where,
            field: `flow.${name}`,
            message: `unknown node "${target}"`,
          });
        }
      }
      if (node.routes) {
        this.#routes.set(name, {
          single: node.routes.every((r) => isSingleKeyPattern(r.match)),
          routes: node.routes.map((r) => ({ re: compileKeyPattern(r.match), to: r.to })),
        });
      }
    }
    if (!isBuiltIn(this.#start) && !(this.#start in nodes)) {
      throw new InputError({
        where,
        field: "user.start",
        message: `unknown node "${this.#start}"`,
      });
    }
    this.#nodes = nodes;
    this.#userdata = scenario.agent.userdata;
    this.#language = scenario.user.language;
    this.#persona = options.persona;
    this.#box = options.voicemailBox;
    this.info = { kind: "flow", settings: { persona: options.persona ? "model" : "stand-in" } };
    this.#trace = { start: this.#start, nodes: [], keys: [] };
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#clock = line.clock;
    this.#seed = setup.seed;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (this.#ended || !this.#line) return;
    switch (event.type) {
      case "call_start":
        if (this.#connected) return;
        this.#connected = true;
        this.#enter(this.#start);
        return;
      case "speech_start":
        this.#agentSpeakingSince = event.at;
        this.#clearTimeout();
        this.#voicemail?.agentSpeechStart(event.at);
        return;
      case "speech":
        this.#agentSpeakingSince = undefined;
        this.#heard(event.text);
        return;
      case "dtmf":
        this.#keys(event.keys);
        return;
      case "hangup":
        this.#finish(this.#current ?? this.#start, this.#hangUpReason(event), false);
        return;
      case "beep":
        return;
    }
  }

  close(): Promise<void> {
    this.#cancelSpeech?.();
    this.#clearTimeout();
    this.#voicemail?.close();
    return Promise.resolve();
  }

  /** The flow trace; `end` is provisional until the call is over. */
  flowTrace(): FlowTrace {
    const end = this.#trace.end ??
      { node: this.#current ?? this.#start, reason: "error", at_ms: this.#clock?.now() ?? 0 };
    return {
      start: this.#trace.start,
      nodes: this.#trace.nodes.map((n) => ({ ...n })),
      keys: this.#trace.keys.map((k) => ({ ...k })),
      ...(this.#voicemail ? { voicemail: this.#voicemail.trace() } : {}),
      end: { ...end },
    };
  }

  // --- nodes ---------------------------------------------------------------

  #node(name = this.#current): FlowNode | undefined {
    return name === undefined ? undefined : this.#nodes[name];
  }

  #enter(name: string): void {
    if (this.#ended) return;
    this.#leaveNode();
    const line = this.#line!;
    if (name === "livekit/hangup") return this.#finish(name, "hangup", true);
    if (name === "livekit/unavailable") {
      this.#current = name;
      this.#speak(
        UNAVAILABLE_PROMPT,
        "MACHINE",
        () => this.#finish(name, "unavailable", true),
        (said) => (this.#unavailableUntil = saidEnd(said, this.#clock!.now(), UNAVAILABLE_PROMPT)),
      );
      return;
    }
    if (name === "livekit/voicemail") {
      // Entered from a node, that node's `say` was the greeting.
      const greet = this.#current === undefined;
      this.#current = name;
      const box = this.#box ?? drawVoicemailBox(this.#seed);
      line.trace({ event: "voicemail_box", ...box });
      this.#voicemail = new VoicemailSession(box, {
        clock: this.#clock!,
        say: (text, onEnd) => this.#speak(text, "MACHINE", onEnd),
        cutOff: () => this.#cutOff(),
        beep: () => line.beep(),
        hangUp: (reason) => this.#finish(name, reason, true),
      });
      // An agent that began talking as the greeting ended is speaking into the box.
      if (this.#agentSpeakingSince !== undefined) {
        this.#voicemail.agentSpeechStart(this.#agentSpeakingSince);
      }
      this.#voicemail.begin(greet);
      return;
    }
    const node = this.#nodes[name]!;
    if (node.routes) {
      const visits = (this.#visits.get(name) ?? 0) + 1;
      this.#visits.set(name, visits);
      if (visits > VISIT_LIMIT) return this.#finish(name, "visit_limit", true);
    }
    this.#current = name;
    const at_ms = this.#clock!.now();
    // A hold is `say` + `timeout` only (flows.md): marked so the transcript can show it.
    const hold = node.timeout !== undefined && node.routes === undefined &&
      node.then === undefined && node.instructions === undefined;
    this.#trace.nodes.push({ name, at_ms, ...(hold ? { hold: true as const } : {}) });
    line.trace({ event: "node", name });
    if (node.say !== undefined) {
      this.#history.push({ speaker: "far_end", text: node.say });
      this.#speak(node.say, node.speaker, () => this.#promptEnded());
    } else {
      this.#promptEnded();
    }
  }

  /** Forgets the node being left: its prompt, timer, keys and conversation. */
  #leaveNode(): void {
    this.#cutOff();
    this.#clearTimeout();
    this.#epoch++;
    this.#collected = "";
    this.#history = [];
    this.#unanswered = false;
    this.#replying = false;
    this.#acknowledged = false;
    this.#answered = false;
  }

  #promptEnded(): void {
    const node = this.#node()!;
    if (node.then !== undefined && node.instructions === undefined) {
      return this.#enter(node.then); // an announcement
    }
    if (node.instructions !== undefined) {
      if (this.#unanswered) this.#respond(false);
      else if (node.then === undefined && node.say === undefined) this.#respond(true);
    }
    this.#armTimeout();
  }

  // --- what the agent does -------------------------------------------------

  #heard(text: string): void {
    if (this.#voicemail) return this.#voicemail.agentSpeech(text);
    const node = this.#node();
    if (!node) return;
    this.#history.push({ speaker: "agent", text });
    if (node.instructions !== undefined) {
      this.#unanswered = true;
      this.#respond(false);
    }
    this.#armTimeout();
  }

  #keys(raw: string): void {
    const at_ms = this.#clock!.now();
    for (const c of raw.toUpperCase()) {
      if (!DTMF_KEY.test(c) || this.#ended) continue;
      const node = this.#current ?? this.#start;
      const last = this.#trace.keys.at(-1);
      if (last && last.node === node && last.at_ms === at_ms) last.keys += c;
      else this.#trace.keys.push({ keys: c, at_ms, node });
      this.#line!.trace({ event: "key", key: c, node });
      this.#key(c);
    }
  }

  #key(k: string): void {
    const name = this.#current;
    if (name === "livekit/voicemail") return this.#voicemail?.key(k);
    const compiled = name === undefined ? undefined : this.#routes.get(name);
    // No routes: the key is ignored (the trace has it), but it is still the agent's
    // input, so a timeout counting the agent's silence starts over.
    if (!compiled) return this.#armTimeout();
    this.#cutOff(); // barge-in
    this.#clearTimeout();
    if (compiled.single) {
      const hit = compiled.routes.find((r) => r.re.test(k));
      if (hit) return this.#enter(hit.to);
      return this.#armTimeout();
    }
    if (k !== "#") {
      this.#collected += k;
      return this.#armTimeout();
    }
    const entry = this.#collected;
    this.#collected = "";
    const hit = compiled.routes.find((r) => r.re.test(entry));
    this.#enter(hit ? hit.to : name!); // no match: the node plays again
  }

  // --- screeners and persons -----------------------------------------------

  /** Answers the agent (or opens, for a person with no `say`) if the node may speak now. */
  #respond(opening: boolean): void {
    const node = this.#node();
    if (!node?.instructions || this.#replying || this.#speaking) return;
    const screener = node.then !== undefined;
    if (screener && this.#answered) return;
    if (!opening && !this.#unanswered) return;
    this.#unanswered = false;
    if (!this.#persona) {
      if (opening) return this.#reply(STAND_IN_OPENING, false);
      if (this.#acknowledged) return;
      this.#acknowledged = true;
      return this.#reply(screener ? STAND_IN_SCREENER_ACK : STAND_IN_PERSON_ACK, screener);
    }
    this.#replying = true;
    this.#clearTimeout();
    const epoch = this.#epoch;
    this.#persona.reply({
      instructions: node.instructions,
      ...(this.#userdata ? { userdata: this.#userdata } : {}),
      ...(this.#language ? { language: this.#language } : {}),
      history: this.#history.map((h) => ({ ...h })),
    }).then(
      (text) => {
        if (epoch !== this.#epoch || this.#ended) return;
        this.#replying = false;
        this.#reply(text.trim(), screener && !opening);
      },
      (e) => {
        if (epoch !== this.#epoch || this.#ended) return;
        const message = e instanceof Error ? e.message : String(e);
        this.#line!.fail(new ParticipantError("model_error", `flow persona: ${message}`));
      },
    );
  }

  #reply(text: string, screenerAnswer: boolean): void {
    const node = this.#node()!;
    if (screenerAnswer) this.#answered = true;
    const after = () => {
      if (screenerAnswer) return this.#enter(node.then!);
      if (this.#unanswered) this.#respond(false);
      this.#armTimeout();
    };
    if (text === "") return after();
    this.#history.push({ speaker: "far_end", text });
    this.#speak(text, node.speaker, after);
  }

  // --- speech and time -----------------------------------------------------

  /**
   * Says `text`; `onEnd` runs one step after the words are out (`onSaid` learns
   * what the line said of them).
   */
  #speak(
    text: string,
    voice: Voice,
    onEnd: () => void,
    onSaid?: (said: SaidUtterance | void) => void,
  ): void {
    this.#clearTimeout();
    this.#speaking = true;
    const clock = this.#clock!;
    const said = this.#line!.say(text, { voice });
    onSaid?.(said);
    let cancelAfter = () => {};
    // One more zero-delay step once the words are out: the bridge delivers the
    // utterance at that instant, and the listener must hear it before what follows
    // (the next prompt, a beep, a hang-up).
    const cancelEnd = afterSaid(said, (ms, fn) => clock.timer(ms, fn), text, () => {
      cancelAfter = clock.timer(0, () => {
        this.#speaking = false;
        this.#cancelSpeech = undefined;
        onEnd();
      });
    });
    this.#cancelSpeech = () => {
      cancelEnd();
      cancelAfter();
    };
  }

  #cutOff(): void {
    if (!this.#speaking) return;
    this.#cancelSpeech?.();
    this.#cancelSpeech = undefined;
    this.#speaking = false;
    this.#line!.stopSpeaking();
  }

  /** Starts the node's timeout, if it has one and nobody is talking. */
  #armTimeout(): void {
    this.#clearTimeout();
    const node = this.#node();
    if (!node?.timeout || this.#ended) return;
    if (this.#speaking || this.#agentSpeakingSince !== undefined || this.#replying) return;
    const to = node.timeout.to;
    this.#cancelTimeout = this.#clock!.timer(node.timeout.after_ms, () => {
      this.#cancelTimeout = undefined;
      this.#enter(to);
    });
  }

  #clearTimeout(): void {
    this.#cancelTimeout?.();
    this.#cancelTimeout = undefined;
  }

  /** Why a call ended that the far end did not end (or had not yet ended) itself. */
  #hangUpReason(event: Extract<CallEvent, { type: "hangup" }>): FlowEndReason {
    const reason = _endReason(event);
    // The announcement is over: the far end's own hang-up is due now, whoever is first.
    const announced = this.#unavailableUntil !== undefined &&
      this.#clock!.now() >= this.#unavailableUntil();
    return announced && reason !== "error" ? "unavailable" : reason;
  }

  #finish(node: string, reason: FlowEndReason, hangUp: boolean): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelSpeech?.();
    this.#cancelSpeech = undefined;
    this.#clearTimeout();
    this.#voicemail?.close();
    const end = { node, reason, at_ms: this.#clock?.now() ?? 0 };
    this.#trace.end = end;
    this.#line?.trace({ event: "end", ...end });
    if (hangUp) this.#line?.hangUp(reason);
  }
}

/**
 * How the far end records a call it did not end itself. A failure is an `error`
 * whichever side it is blamed on (the bridge sends an unreachable agent's as
 * `by: "agent"`), so it is checked before who hung up.
 */
function _endReason(event: Extract<CallEvent, { type: "hangup" }>): FlowEndReason {
  if (event.reason === "error") return "error";
  if (event.by === "agent") return "agent_hangup";
  if (event.reason === "silence") return "silence";
  if (event.reason === "max_duration" || event.reason === "max_turns") return event.reason;
  return "error";
}
