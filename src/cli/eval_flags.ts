/**
 * `eval`'s flags, in the sections its help shows, and the help itself: one table per
 * section generates both the parser's options and the help's rows (`args.ts`).
 */
import { DEFAULT_LIMITS } from "../bridge/bridge.ts";
import { workersPayOffAt } from "../runner/worker_count.ts";
import { flagRows, type FlagTable } from "./args.ts";
import { SELECTION_FLAGS } from "./selection_flags.ts";

/** `--workers` omitted: at most one per core (`worker_count.ts` decides how many). */
export function defaultWorkers(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/** Which scenarios run (else references from stdin). */
export const EVAL_SELECTION_FLAGS = {
  ...SELECTION_FLAGS,
  "data-root": {
    ...SELECTION_FLAGS["data-root"],
    description: "data laid out as <domain>/... (else EVAL_DATA_ROOT, else bundled fixtures)",
  },
  all: {
    type: "boolean",
    description: "every scenario of the data root (stdin is not read)",
  },
  retrieval: {
    type: "string",
    value: "V",
    description: "tau2_banking_knowledge: the agent's knowledge-base tools and prompt, as\n" +
      "the reference's variant V: bm25_grep (default) | bm25 | grep_only | full_kb |\n" +
      "no_knowledge | golden_retrieval | openai_embeddings[_grep] |\n" +
      "qwen_embeddings[_grep]; part of the config hash",
  },
  "embeddings-url": {
    type: "string",
    value: "URL",
    description: "the dense --retrieval variants: an OpenAI-compatible endpoint (.../v1)\n" +
      "their documents and queries are embedded with (key: OPENAI_API_KEY, or\n" +
      "OPENROUTER_API_KEY for qwen); part of the config hash",
  },
} as const satisfies FlagTable;

/** Who is on the call. */
export const PARTICIPANT_FLAGS = {
  agent: {
    type: "string",
    value: "A",
    description: "oracle | vad-oracle (turns by VAD; needs --audio) | noop | llm | navigator\n" +
      "| script:FILE | ws://HOST:PORT/PATH\n" +
      "| sip:USER@HOST[:PORT] (a phone agent over SIP/RTP, UDP; needs --audio)\n" +
      "| http://HOST:PORT/api/offer (a pipecat SmallWebRTC bot: WebRTC)\n" +
      "(default: llm when an agent model is configured, else oracle)",
  },
  user: {
    type: "string",
    value: "U",
    description: "auto (scripted; flow callee for flows) | scripted | llm | flow | ws://...",
  },
  "agent-model": {
    type: "string",
    value: "M",
    description: "model of the llm agent (else CALLBENCH_AGENT_MODEL)",
  },
  "user-model": {
    type: "string",
    value: "M",
    description: "model of the llm caller or flow persona (else CALLBENCH_USER_MODEL)",
  },
  "base-url": {
    type: "string",
    value: "URL",
    description: "OpenAI-compatible base URL (else OPENAI_BASE_URL)",
  },
  "api-key-env": {
    type: "string",
    value: "NAME",
    description: "environment variable holding the API key (default OPENAI_API_KEY)",
  },
  temperature: {
    type: "string",
    value: "T",
    description: "sampling temperature of LLM participants",
  },
  "connect-attempts": {
    type: "string",
    value: "N",
    description: "tries to reach a ws:// participant before the trial fails",
    default: "3",
  },
  kick: {
    type: "string",
    value: "TEXT",
    description: "text sent to a ws:// agent when the call starts (reference-style bots)",
  },
  framing: {
    type: "string",
    value: "F",
    description: "the ws:// agent's wire: json (default; RTVI JSON text frames) |\n" +
      "protobuf (RTVI in pipecat protobuf frames) | twilio (Twilio Media\n" +
      "Streams: callbench plays Twilio; audio only) | openai-realtime (the\n" +
      "OpenAI Realtime API: callbench is the client; needs --audio) |\n" +
      "smallwebrtc (pipecat SmallWebRTC over WebRTC; default for http://).\n" +
      "Else the URL's ?framing=",
  },
  "tools-server": {
    type: "boolean",
    description: "also serve each call's agent tools over MCP (Streamable HTTP) for agents\n" +
      "that call their tools themselves: the endpoint reaches the agent in the\n" +
      "RTVI update_system_prompt data, the realtime session's tools or the SIP\n" +
      "INVITE's X-Callbench-Tools header, and the record; the calls run in the\n" +
      "trial's world (trials run in-process)",
  },
  "tools-host": {
    type: "string",
    value: "HOST",
    description: "where --tools-server listens (default 127.0.0.1)",
  },
  "agent-key": {
    type: "string",
    value: "KEY",
    description: "openai-realtime: the API key, sent as Authorization: Bearer (else the\n" +
      "key variable, OPENAI_API_KEY or --api-key-env); never recorded",
  },
  "realtime-audio": {
    type: "string",
    value: "F",
    description: "openai-realtime: pcm16 (default; 24 kHz) | g711_ulaw (8 kHz), both ways",
  },
  "turn-detection": {
    type: "string",
    value: "T",
    description: "openai-realtime: server_vad (default) | semantic_vad | none (callbench\n" +
      "commits each utterance and asks for the response)",
  },
  "agent-world": {
    type: "string",
    value: "W",
    description: "harness (default): callbench holds the world and runs every tool |\n" +
      "self: the ws:// agent is a reference-style bot that holds its own world\n" +
      '(configured as the reference runner does; it sends "Hello" unless --kick;\n' +
      'the final hash is the bot\'s own claim: world_owner "agent")',
  },
} as const satisfies FlagTable;

/** How the trials run and where they go. */
export const RUN_FLAGS = {
  label: {
    type: "string",
    value: "NAME",
    description: "names this configuration: recorded in each record, part of the\n" +
      "config hash, shown by report (which never pools configurations)",
  },
  trials: {
    type: "string",
    value: "N",
    description: "trials per scenario, each with its own seed",
    default: "1",
  },
  concurrency: {
    type: "string",
    value: "C",
    description: "trials at once, spread across the workers (--audio with a ws:// agent:\n" +
      "as many as the machine holds at the pacers' lateness bound, at most C)",
    default: "4",
  },
  strict: {
    type: "boolean",
    description: "with --concurrency C: run exactly C trials at once (no real-time table,\n" +
      "no lateness gate) or refuse before any call (fewer trials than C, say)",
  },
  workers: {
    type: "string",
    value: "W",
    description: "Workers running trials, each with its own event loop and its own\n" +
      "copy of the worlds (never more than C); 0 or 1 runs them here.\n" +
      `Default: one per core (${defaultWorkers()}) when the run has at least ${
        workersPayOffAt(Math.max(2, defaultWorkers()))
      }\n` +
      "simulated-clock trials (they pay back the Workers' start-up) and\n" +
      "the load average leaves cores idle, else none; real-clock calls\n" +
      "(ws://, llm) run here unless W is given",
  },
  shard: {
    type: "string",
    value: "i/n",
    description: "run only shard i of n (0-based; by a hash of the trial key)",
  },
  out: {
    type: "string",
    value: "DIR",
    description: "append records to DIR/trials.jsonl, transcripts to DIR/transcripts/;\n" +
      "a folder holding another configuration is refused (see --append)",
  },
  append: { type: "boolean", description: "allow --out DIR to hold other configurations too" },
  resume: {
    type: "boolean",
    description: "skip trials already in DIR/trials.jsonl (printed first when stdout\n" +
      "is not a terminal, so score | report see the whole run)",
  },
  "retry-errors": {
    type: "boolean",
    description: "with --resume: run infrastructure-error trials again (their new\n" +
      "record supersedes the old one)",
  },
  "max-turns": {
    type: "string",
    value: "N",
    description: "turn guard per call",
    default: String(DEFAULT_LIMITS.maxTurns),
  },
  "min-agent-turns": {
    type: "string",
    value: "N",
    description: "recorded for score: a trial whose agent spoke fewer turns fails\n" +
      "(counts spoken agent turns, not LLM calls as the reference does)",
  },
  silence: {
    type: "string",
    value: "S",
    description: "seconds of silence that end a call",
    default: String(DEFAULT_LIMITS.silenceMs / 1000),
  },
} as const satisfies FlagTable;

/** Audio calls. */
export const AUDIO_FLAGS = {
  audio: {
    type: "boolean",
    description: "synthesize every utterance; the record gets an audio block, and with\n" +
      "--out each trial's stereo recording goes to DIR/audio/<trial>.wav",
  },
  tts: {
    type: "string",
    value: "P",
    description:
      "flite (default, offline, English) | espeak (espeak-ng, run as a program) | offline (flite\n" +
      "for English, espeak-ng for other languages) | openai (POST /v1/audio/speech)",
  },
  "tts-model": { type: "string", value: "M", description: "the openai TTS model" },
  "tts-base-url": {
    type: "string",
    value: "URL",
    description: "its base URL (else OPENAI_BASE_URL)",
  },
  "agent-voice": {
    type: "string",
    value: "V",
    description: "the agent's voice (flite: slt rms awb kal16 kal; default rms)",
  },
  "user-voice": {
    type: "string",
    value: "V",
    description: "the caller's voice (default slt; flite: NAME[:rate=R][:pitch=HZ])",
  },
  voices: {
    type: "string",
    value: "N",
    description: "spread the trials over N caller voices (flite personas, 1-12),\n" +
      "one per trial from its seed; the report breaks success down by voice",
  },
  stt: {
    type: "string",
    value: "P",
    description: "transcript (default: the listener gets the speaker's own text) |\n" +
      "openai (the agent's audio is transcribed for the caller)",
  },
  "stt-model": { type: "string", value: "M", description: "the openai STT model" },
  "stt-base-url": {
    type: "string",
    value: "URL",
    description: "its base URL (else OPENAI_BASE_URL)",
  },
  dtmf: {
    type: "string",
    value: "M",
    description:
      "inband (default: keys and beeps are tones, heard by detectors) | event | info (SIP INFO)",
  },
  "barge-in": {
    type: "string",
    value: "P",
    description: "chance per agent utterance that the scripted caller cuts in (seeded)",
  },
  hints: {
    type: "string",
    value: "H",
    description: "transcript: also give a ws:// agent the caller's words and turn ends\n" +
      '(debugging; off, it gets only the audio; the report says "agent given transcripts")',
  },
  "caller-behaviour": {
    type: "string",
    value: "B",
    description: "the caller's full-duplex behaviours, each a chance per opportunity:\n" +
      "backchannel=R,filler=R,pause=R,side=R,interrupt=R,late=R (seeded; else the\n" +
      "scenario's user.behaviour); each one acted out is in the record's audio.caller_events",
  },
  "caller-timing": {
    type: "string",
    value: "T",
    description:
      "when the scripted or LLM caller takes its turn (seeded): gap=250ms±100,eot=600ms\n" +
      "(the defaults): it answers a gap after the agent's speech stops, holds back when\n" +
      "the agent starts again within it and then waits for the end-of-turn silence eot",
  },
  line: {
    type: "string",
    value: "L",
    description: "the phone line the caller's audio crosses (default clean, or the\n" +
      "scenario's user.line): clean phone noisy-cafe street car office babble\n" +
      "white@SNR loss@P[/BURST][/repeat] jitter@MS volume@dB muffled clip,\n" +
      "joined by + (phone+street@10+loss@3%); seeded from each trial's seed. A sweep,\n" +
      "clean,phone,street@10, runs each line as its own configuration, labelled by\n" +
      "its line (LABEL/line with --label), one after the other into the same output",
  },
  "line-both": {
    type: "boolean",
    description: "the agent's audio crosses the line too, as callbench hears it",
  },
} as const satisfies FlagTable;

/** Every flag of eval: the sections above. */
export const EVAL_FLAGS = {
  ...EVAL_SELECTION_FLAGS,
  ...PARTICIPANT_FLAGS,
  ...RUN_FLAGS,
  ...AUDIO_FLAGS,
} as const satisfies FlagTable;

/** `eval --help`. */
export const EVAL_HELP = `eval: run trials and print one trial record per line

Usage: cli.ts eval [selection] [--agent A] [--user U] [--trials N] [--concurrency C]
                   [--workers W] [--shard i/n] [--label NAME] [--out DIR [--resume [--retry-errors]]]

Selection (else scenario references from stdin, as "list" prints them; stdin that is a
pipe or file with no reference is an error, exit 2; from a terminal, every scenario):
${
  flagRows(EVAL_SELECTION_FLAGS, {
    extra: [["FILE|DIR", "scenario or flow files (validated before any call)"]],
  })
}

Participants:
${flagRows(PARTICIPANT_FLAGS)}

Audio (--audio: both sides speak; deterministic ends run on the simulated clock):
${flagRows(AUDIO_FLAGS)}

Exit status: 0 when the trials ran (whatever their verdicts), 1 when every trial ended in an
infrastructure error (e.g. the agent was unreachable) or stdout closed without --out (the run
stops), 2 for usage or input errors, 130 on Ctrl-C (it says what was recorded; --resume
continues). With --out, a closed stdout does not stop the run.

Run:
${flagRows(RUN_FLAGS)}`;
