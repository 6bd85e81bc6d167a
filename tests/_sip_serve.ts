/**
 * `serve --sip` in-process for the tests: the animal clinic's flow, the built-in agents
 * (the flow's callee among them), a TTS of the test's own, and every ended call's
 * summary kept.
 */
import { builtinFactory, hostedParticipant, scenarioLookup } from "../src/commands/serve.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { type SipCallSummary, SipServer, type SipServerOptions } from "../src/server/sip_server.ts";
import type { TtsProvider, TtsRequest, TtsResult } from "../src/speech/speech.ts";

export const root = new DataRoot(BUNDLED_DATA_ROOT);
export const CLINIC_FLOW = new URL("../scenarios/flows/animal_clinic.yaml", import.meta.url)
  .pathname;
export const REFILL = "flow__riverside-animal-clinic__refill-by-pet-id";

/** A TTS that says every utterance as `make()` (8 kHz), and keeps what it was asked. */
export class FixedTts implements TtsProvider {
  readonly info: { provider: string; sampleRate: number };
  readonly asked: string[] = [];
  readonly #make: () => Int16Array;
  constructor(provider: string, make: () => Int16Array) {
    this.info = { provider, sampleRate: 8000 };
    this.#make = make;
  }
  synthesize(request: TtsRequest): Promise<TtsResult> {
    this.asked.push(request.text);
    return Promise.resolve({ ok: true, audio: pcm16(this.#make(), 8000) });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Starts the server on a free port with `defaultAgent` answering; `options` override. */
export async function startSipServe(
  tts: TtsProvider,
  defaultAgent: string,
  options: Partial<SipServerOptions> = {},
): Promise<{ sip: SipServer; ended: SipCallSummary[] }> {
  const lookUp = scenarioLookup(root, [CLINIC_FLOW]);
  const ended: SipCallSummary[] = [];
  const sip = await SipServer.start({
    port: 0,
    factory: builtinFactory(root, {}, {}, lookUp),
    lookUp,
    participantOf: hostedParticipant,
    defaultAgent,
    audio: () => ({ tts }),
    session: { dataRoot: root },
    onCallEnded: (s) => ended.push(s),
    ...options,
  });
  return { sip, ended };
}
