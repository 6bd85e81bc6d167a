/**
 * The script agent (`--agent script:FILE`): plays a fixed list of timed actions, so a
 * flow can be exercised with exact keys and timings. A script is a YAML or JSON list
 * (or `{actions: [...]}`) of:
 *
 * - `{say: "text"}`: speak; the next action starts when the words are out;
 * - `{press: "123#"}`: press keys;
 * - `{wait: 2.5}`: wait that many seconds; a duration as flow files write one
 *   (`6s`, `1.5s`, `1500ms`) works too;
 * - `{hangup: true}`: hang up;
 *
 * each optionally with `after: speech` or `after: beep`: first wait until the far
 * end finishes an utterance (or beeps) after the previous action started. An action
 * may be `after` alone. When the list runs out the agent stays silent.
 *
 * @module
 */
import { isScalar, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../bridge/call.ts";
import { afterSaid } from "../speech/utterance.ts";
import { fieldText, InputError, type Problem } from "../problem/problem.ts";
import { DTMF_KEYS, DTMF_KEYS_TEXT } from "../dtmf/keys.ts";
import { readInputFile } from "../scenario/files.ts";
import { durationMs } from "../flow/schema.ts";

const VERBS = ["say", "press", "wait", "hangup"] as const;

export const ScriptActionSchema = z.object({
  say: z.string().min(1).optional(),
  /** Keys; letters may be written in lower case (`press: 1a`) and are read as upper case. */
  press: z.string().transform((k) => k.toUpperCase()).pipe(
    z.string().regex(DTMF_KEYS, `keys are ${DTMF_KEYS_TEXT}`),
  ).optional(),
  /** Seconds, or a duration as flow files write one (`6s`, `1500ms`); parsed to seconds. */
  wait: z.union([z.number(), z.string()]).transform((w, ctx) => {
    const ms = durationMs(w);
    if (ms === undefined || !(ms > 0)) {
      ctx.addIssue({
        code: "custom",
        message: `"wait" is a positive duration: seconds (2.5), "6s" or "1500ms", got ${
          JSON.stringify(w)
        }`,
      });
      return z.NEVER;
    }
    return ms / 1000;
  }).optional(),
  hangup: z.literal(true).optional(),
  after: z.enum(["speech", "beep"]).optional(),
}).strict().refine(
  (a) => {
    const verbs = VERBS.filter((v) => a[v] !== undefined).length;
    return verbs === 1 || (verbs === 0 && a.after !== undefined);
  },
  { message: 'an action is one of "say", "press", "wait" or "hangup", with an optional "after"' },
);
export type ScriptAction = z.infer<typeof ScriptActionSchema>;

export const ScriptSchema = z.array(ScriptActionSchema);

/** Parses a script file's text; every problem names the file, line and field. */
export function parseScript(
  file: string,
  text: string,
): { actions?: ScriptAction[]; problems: Problem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((e) => ({
        file,
        line: lineOf(e.pos[0]),
        message: `invalid YAML: ${e.message.split("\n")[0]}`,
      })),
    };
  }
  const value = doc.toJS() as unknown;
  const listed = Array.isArray(value);
  const base = listed ? [] : ["actions"];
  const list = listed ? value : (value as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(list)) {
    return {
      problems: [{ file, line: 1, message: "a script is a list of actions (or {actions: [...]})" }],
    };
  }
  // Keys are text: `press: 0042` keeps its zeros.
  list.forEach((item, i) => {
    const node = doc.getIn([...base, i, "press"], true);
    if (isScalar(node) && typeof node.value === "number" && item && typeof item === "object") {
      (item as Record<string, unknown>).press = node.source ?? String(node.value);
    }
  });
  const parsed = ScriptSchema.safeParse(list);
  if (parsed.success) return { actions: parsed.data, problems: [] };
  // An action with an unknown field also fails the one-verb rule: report the field only.
  const unknownAt = new Set(
    parsed.error.issues.filter((i) => i.code === "unrecognized_keys").map((i) => i.path.join(".")),
  );
  const issues = parsed.error.issues.filter((i) =>
    i.code !== "custom" || !unknownAt.has(i.path.join("."))
  );
  return {
    problems: issues.map((issue) => {
      const path = issue.path.filter((k): k is string | number => typeof k !== "symbol");
      let node: unknown;
      for (let n = path.length; n >= 0 && !node; n--) {
        node = doc.getIn([...base, ...path.slice(0, n)], true);
      }
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      const field = fieldText(path);
      return {
        file,
        ...(range ? { line: lineOf(range[0]) } : {}),
        ...(field ? { field } : {}),
        message: issue.code === "unrecognized_keys"
          ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${
            issue.keys.map((k) => `"${k}"`).join(", ")
          } (an action has say, press, wait, hangup, after)`
          : issue.message,
      };
    }),
  };
}

export class ScriptAgent implements Participant {
  readonly info: ParticipantInfo;
  readonly #actions: readonly ScriptAction[];
  #line?: CallLine;
  #ended = false;
  #running = false;
  readonly #abort = new AbortController();
  readonly #heard = { speech: 0, beep: 0 };
  #waiters: { kind: "speech" | "beep"; count: number; resolve: () => void }[] = [];

  constructor(actions: readonly ScriptAction[], source?: string) {
    this.#actions = ScriptSchema.parse(actions);
    this.info = {
      kind: "script",
      settings: { ...(source ? { file: source } : {}), actions: this.#actions.length },
    };
  }

  /** Reads a script file; a bad one is an `InputError` listing every problem. */
  static async fromFile(path: string): Promise<ScriptAgent> {
    const read = await readInputFile(path, "script file");
    if ("problem" in read) throw new InputError(read.problem);
    const { actions, problems } = parseScript(path, read.text);
    if (!actions) throw new InputError(problems);
    return new ScriptAgent(actions, path);
  }

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (this.#ended) return;
    if (event.type === "hangup") {
      this.#ended = true;
      this.#abort.abort();
      return;
    }
    if (event.type === "call_start" && !this.#running) {
      this.#running = true;
      this.#run().catch(() => {}); // only an abort ends it early
      return;
    }
    if (event.type === "speech" || event.type === "beep") {
      const kind = event.type;
      this.#heard[kind]++;
      this.#waiters = this.#waiters.filter((w) => {
        if (w.kind !== kind || this.#heard[kind] < w.count) return true;
        w.resolve();
        return false;
      });
    }
  }

  close(): Promise<void> {
    this.#ended = true;
    this.#abort.abort();
    return Promise.resolve();
  }

  /** Says `text` and resolves once the words are out (rejects when the call ends). */
  #untilSaid(text: string): Promise<void> {
    const line = this.#line!;
    const signal = this.#abort.signal;
    const said = line.say(text);
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        cancel();
        reject(signal.reason);
      };
      const cancel = afterSaid(said, (ms, fn) => line.clock.timer(ms, fn), text, () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  async #run(): Promise<void> {
    const line = this.#line!;
    // What had been heard when the previous action started.
    let since = { ...this.#heard };
    for (const a of this.#actions) {
      if (a.after) await this.#hear(a.after, since[a.after] + 1);
      if (this.#ended) return;
      since = { ...this.#heard };
      if (a.say !== undefined) {
        await this.#untilSaid(a.say);
        // One more zero-delay step: the bridge delivers the words at that instant, and
        // they must reach the far end before the next action (a hang-up, say).
        await line.clock.sleep(0, this.#abort.signal);
      } else if (a.press !== undefined) {
        line.press(a.press);
      } else if (a.wait !== undefined) {
        await line.clock.sleep(a.wait * 1000, this.#abort.signal);
      } else if (a.hangup) {
        line.hangUp("script");
        return;
      }
    }
  }

  #hear(kind: "speech" | "beep", count: number): Promise<void> {
    if (this.#heard[kind] >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ kind, count, resolve });
      this.#abort.signal.addEventListener("abort", () => reject(this.#abort.signal.reason), {
        once: true,
      });
    });
  }
}
