/**
 * A participant on the far side of a WebSocket, on either side of the call
 * (`--agent ws://...` or `--user ws://...`). The wire is chosen by its framing
 * (`--framing json|protobuf|twilio`, else the URL's `?framing=`, else `json`): RTVI
 * 2.1 in JSON or pipecat protobuf frames (`src/transport/rtvi.ts`), or Twilio Media
 * Streams (`src/transport/twilio.ts`). The connection plumbing they share is
 * `src/transport/ws_client.ts`; the table of mappings is `src/transport/mapping.ts`.
 * This class picks the mapping and loads it when the call starts.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
  SelfWorldReport,
} from "../bridge/call.ts";
import type { Pcm16 } from "../audio/pcm.ts";
import { MAPPINGS } from "../transport/mappings.ts";
import {
  remoteInfo,
  type RemoteParticipantOptions,
  type ResolvedRemote,
  resolveRemote,
} from "../transport/mapping.ts";

export type { RemoteParticipantOptions, WireFraming } from "../transport/mapping.ts";
export type { ClientSocket } from "../transport/ws_client.ts";
export { FRAGMENT_GAP_MS, joinFragments } from "../transport/rtvi_turns.ts";

/** A remote participant over the mapping its framing names. */
export class RemoteParticipant implements Participant {
  readonly #resolved: ResolvedRemote;
  readonly #info: ParticipantInfo;
  #inner?: Participant;

  constructor(options: RemoteParticipantOptions) {
    this.#resolved = resolveRemote(options);
    this.#info = remoteInfo(this.#resolved);
  }

  /** The mapping's description once the call started (it may add settings). */
  get info(): ParticipantInfo {
    return this.#inner?.info ?? this.#info;
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    const mapping = await MAPPINGS[this.#resolved.framing]();
    this.#inner = mapping(this.#resolved);
    await this.#inner.start(line, setup);
  }

  onEvent(event: CallEvent): void {
    this.#inner?.onEvent(event);
  }

  worldReport(): Promise<SelfWorldReport> {
    return this.#inner?.worldReport?.() ?? Promise.resolve({ db_hash: null, actions: [] });
  }

  /** `--agent-world self`: an in-call sync delta for the bot's own world (the mapping's). */
  applySyncDelta(delta: Record<string, unknown>): void {
    this.#inner?.applySyncDelta?.(delta);
  }

  /** The call is ending: the mapping hands over the turn in progress. */
  flush(options: { wait: boolean }): Promise<void> | void {
    return this.#inner?.flush?.(options);
  }

  /** What the far end gets of `audio` on the mapping's wire (its rate and codec). */
  wireAudio(audio: Pcm16): Pcm16 {
    return this.#inner?.wireAudio?.(audio) ?? audio;
  }

  async close(): Promise<void> {
    await this.#inner?.close();
  }
}
