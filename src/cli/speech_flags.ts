/** `eval`'s audio flags (`--audio`, `--tts`, `--line`...) as speech options. */
import { InputError } from "./problem.ts";
import type { Io } from "./io.ts";
import { defaultSpeechOptions, type SpeechOptions } from "../speech/speech_options.ts";
import { FLITE_PERSONAS, isFliteVoice } from "../speech/_flite_wasi.ts";
import { LINE_TERMS, lineText, parseLine } from "../audio/line/spec.ts";
import { parseBehaviour } from "../speech/behaviour.ts";
import { parseCallerTiming } from "../speech/caller_timing.ts";
import { MAX_VOICE_NAME_CHARS } from "../speech/user_voice.ts";
import { quoteInput } from "../problem/quote.ts";

const AUDIO_ONLY = [
  "tts",
  "tts-model",
  "tts-base-url",
  "agent-voice",
  "user-voice",
  "stt",
  "stt-model",
  "stt-base-url",
  "dtmf",
  "barge-in",
  "hints",
  "line",
  "caller-behaviour",
  "caller-timing",
  "voices",
] as const;

/**
 * The lines of a `--line` sweep (`clean,phone,street@10`), each its own configuration;
 * undefined for one line (or none).
 */
export function lineSweep(line: string | undefined): string[] | undefined {
  if (line === undefined || !line.includes(",")) return undefined;
  const lines = line.split(",").map((l) => l.trim());
  if (lines.some((l) => l === "")) {
    throw new InputError({
      field: "--line",
      message: `empty line in the sweep "${line}"`,
      hint: "lines joined by commas: clean,phone,street@10",
    });
  }
  const twice = lines.find((l, i) => lines.indexOf(l) !== i);
  if (twice !== undefined) {
    throw new InputError({ field: "--line", message: `"${twice}" is in the sweep twice` });
  }
  return lines;
}

/** `--audio` and its flags as speech options (undefined without `--audio`). */
export function speechFromFlags(
  values: Partial<Record<(typeof AUDIO_ONLY)[number], string>> & {
    audio?: boolean;
    "line-both"?: boolean;
  },
  io: Pick<Io, "env">,
): SpeechOptions | undefined {
  if (!values.audio) {
    const given = AUDIO_ONLY.find((f) => values[f] !== undefined) ??
      (values["line-both"] ? "line-both" : undefined);
    if (given) throw new InputError({ field: `--${given}`, message: "needs --audio" });
    return undefined;
  }
  const o = defaultSpeechOptions();
  const tts = values.tts ?? "flite";
  if (tts !== "flite" && tts !== "openai" && tts !== "espeak" && tts !== "offline") {
    throw new InputError({ field: "--tts", message: "expected flite, espeak, offline or openai" });
  }
  if (tts === "espeak" || tts === "offline") o.tts = { provider: tts };
  /** `--tts openai` or `--stt openai`: its endpoint (its flag, else OPENAI_BASE_URL) and model. */
  const openai = (flag: "tts" | "stt") => {
    const base = values[`${flag}-base-url`] ?? io.env("OPENAI_BASE_URL");
    if (!base) {
      throw new InputError({
        field: `--${flag}`,
        message: `openai needs --${flag}-base-url or OPENAI_BASE_URL`,
      });
    }
    const model = values[`${flag}-model`];
    return { provider: "openai" as const, base_url: base, ...(model ? { model } : {}) };
  };
  if (tts === "openai") {
    o.tts = openai("tts");
    o.voices = {};
  }
  for (const [flag, side] of [["agent-voice", "agent"], ["user-voice", "user"]] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    if (v.length > MAX_VOICE_NAME_CHARS) {
      throw new InputError({ field: `--${flag}`, message: `voice name of ${v.length} characters` });
    }
    if ((tts === "flite" || tts === "offline") && !isFliteVoice(v)) {
      throw new InputError({
        field: `--${flag}`,
        message: `unknown flite voice ${quoteInput(v)}`,
        hint: "slt, rms, awb, kal16 or kal, optionally :rate=R (0.5-2) and :pitch=HZ (50-400)",
      });
    }
    o.voices[side] = v;
  }
  const stt = values.stt ?? "transcript";
  if (stt !== "transcript" && stt !== "openai") {
    throw new InputError({ field: "--stt", message: "expected transcript or openai" });
  }
  if (stt === "openai") {
    o.stt = openai("stt");
  }
  const dtmf = values.dtmf ?? "inband";
  if (dtmf !== "inband" && dtmf !== "event" && dtmf !== "info") {
    throw new InputError({ field: "--dtmf", message: "expected inband, event or info" });
  }
  o.dtmf = dtmf;
  if (values["barge-in"] !== undefined) {
    const p = Number(values["barge-in"]);
    if (!(p >= 0 && p <= 1)) {
      throw new InputError({ field: "--barge-in", message: "expected a chance from 0 to 1" });
    }
    o.barge_in = p;
  }
  if (values.hints !== undefined) {
    if (values.hints !== "transcript") {
      throw new InputError({ field: "--hints", message: "expected transcript" });
    }
    o.hints = ["transcript"];
  }
  if (values.voices !== undefined) {
    const n = Number(values.voices);
    if (!(Number.isInteger(n) && n >= 1 && n <= FLITE_PERSONAS.length) || tts !== "flite") {
      throw new InputError({
        field: "--voices",
        message: `expected a count from 1 to ${FLITE_PERSONAS.length} (flite voices)`,
      });
    }
    o.voice_spread = n;
  }
  if (values["caller-behaviour"] !== undefined) {
    try {
      o.behaviour = parseBehaviour(values["caller-behaviour"]);
    } catch (e) {
      throw new InputError({
        field: "--caller-behaviour",
        message: e instanceof Error ? e.message : String(e),
      });
    }
  }
  if (values["caller-timing"] !== undefined) {
    try {
      o.caller_timing = parseCallerTiming(values["caller-timing"]);
    } catch (e) {
      throw new InputError({
        field: "--caller-timing",
        message: e instanceof Error ? e.message : String(e),
        hint: "e.g. gap=250ms±100,eot=600ms",
      });
    }
  }
  const line = values.line;
  if (line !== undefined || values["line-both"]) {
    let text: string | undefined;
    if (line !== undefined) {
      try {
        text = lineText(parseLine(line));
      } catch (e) {
        throw new InputError({
          field: "--line",
          message: e instanceof Error ? e.message : String(e),
          hint: `terms: ${LINE_TERMS.join(" ")}, joined by +`,
        });
      }
    }
    o.line = {
      ...(line !== undefined ? { preset: line, text } : {}),
      both: values["line-both"] ?? false,
    };
  }
  return o;
}
