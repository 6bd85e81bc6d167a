/**
 * The LLM judge (reference-harness §8), opt-in: nothing calls a model unless `score` is
 * given a judge model and a base URL. It reads a trial's evidence (reference actions,
 * the actions the call produced, the conversation, the flow trace, the assertions),
 * asks an OpenAI-compatible chat model for a 0-1 score and one verdict per assertion,
 * and normalises the reply to exactly one verdict per assertion, in order.
 *
 * The assertions judged are the scenario's NL assertions, then a flow scenario's
 * `agent_expectations` (flows.md "Scoring a flow").
 *
 * Failures are kept apart from verdicts (reference-harness §12.3): HTTP errors are
 * retried by the client; a reply that cannot be parsed, or that lacks verdicts, is
 * asked again; a judge that still cannot answer gives `status: "error"`, which makes
 * the trial's verdict an infrastructure error (kind `judge_error`), not a failed
 * assertion. A reply still missing verdicts after the last attempt counts the missing
 * ones as failed, as the reference does, and says `incomplete`.
 *
 * @module
 */
import type { TrialRecord } from "../runner/trial_record.ts";
import type { ChatCompleter } from "../llm/openai.ts";
import type { JudgeResult, NlVerdict } from "./verdict.ts";

export interface JudgeOptions {
  /** The chat model (an `OpenAIClient`, or a stand-in). */
  model: ChatCompleter;
  /** `judge_passed` is `score >= threshold`; without it the signal does not apply. */
  threshold?: number;
  /** Requests per trial when replies cannot be parsed or lack verdicts. Default 3. */
  maxAttempts?: number;
  /** Sampling, sent as given. Default temperature 0, seed 42. */
  temperature?: number;
  seed?: number;
  maxTokens?: number;
}

export const MISSING_VERDICT_REASON = "Missing verdict; treated as failed.";

/** The assertions the judge rules on: NL assertions, then the flow's `agent_expectations`. */
export function judgedAssertions(record: TrialRecord): string[] {
  const { nl_assertions, agent_expectations } = record.expect;
  return agent_expectations ? [...nl_assertions, agent_expectations] : [...nl_assertions];
}

/** Whether the judge has anything to rule on for this trial. */
export function needsJudge(record: TrialRecord, threshold?: number): boolean {
  if (record.status === "error") return false;
  return judgedAssertions(record).length > 0 || threshold !== undefined;
}

export const JUDGE_SYSTEM_PROMPT = `You grade a call between a voice agent and a caller.
You are given what should have happened (<reference>: the calls a correct agent makes), what the
call produced (<prediction>: the actions recorded, each with its "side"), the conversation
(<conversation>), for menu and voicemail calls the far end's trace (<flow_trace>), and numbered
statements to check (<nl_assertions>).

Rules:
- "side": "agent" marks the agent's own tool call; "side": "user" marks a call made on the caller's
  phone. Never credit or blame the agent for the caller's tool calls, only for its guidance.
- Judge outcomes and behaviour, not wording. Do not penalise how codes were spelled aloud.
- Give concrete reasons that quote the conversation.

Answer with one JSON object and nothing else:
{"score": <0 to 1: how well the agent did its task>, "reason": "<short>",
 "nl_assertion_verdicts": [{"index": <1-based number of the statement>, "passed": true|false,
 "reason": "<short>"}]}
Give exactly one verdict per numbered statement, when there are statements.`;

/** The evidence for one trial, in sections, each only where available. */
export function judgeEvidence(record: TrialRecord, assertions: readonly string[]): string {
  const sections: string[] = [];
  const section = (tag: string, body: string) => sections.push(`<${tag}>\n${body}\n</${tag}>`);
  if (record.expect.reference_actions !== undefined) {
    section("reference", JSON.stringify({ actions: record.expect.reference_actions }, null, 2));
  }
  if (record.actions.length > 0 || record.expect.reference_actions !== undefined) {
    section("prediction", JSON.stringify({ actions: record.actions }, null, 2));
  }
  if (record.turns.length > 0) {
    section("conversation", record.turns.map((t) => `[${t.speaker}]: ${t.text}`).join("\n"));
  }
  if (record.flow !== undefined) section("flow_trace", JSON.stringify(record.flow, null, 2));
  if (assertions.length > 0) {
    section("nl_assertions", assertions.map((a, i) => `${i + 1}. ${a}`).join("\n"));
  }
  return sections.join("\n\n");
}

/** Asks the judge about one trial. */
export async function judgeTrial(record: TrialRecord, options: JudgeOptions): Promise<JudgeResult> {
  const assertions = judgedAssertions(record);
  const base = {
    model: options.model.model,
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
  };
  if (record.turns.length === 0 && record.actions.length === 0) {
    return {
      ...base,
      status: "completed",
      score: 0,
      reason: "No observed evidence: the call has no conversation and no actions",
      nl_assertion_verdicts: assertions.map((assertion, i) => ({
        index: i + 1,
        assertion,
        passed: false,
        reason: "No evidence of the call; treated as failed.",
      })),
      attempts: 0,
    };
  }

  const user = judgeEvidence(record, assertions);
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  let problem = "";
  let last: ReturnType<typeof normaliseVerdicts> | undefined;
  let lastReply: ParsedReply | undefined;
  let attempts = 0;
  while (attempts < maxAttempts) {
    attempts++;
    let content: string;
    try {
      const reply = await options.model.complete({
        messages: [
          { role: "system", content: JUDGE_SYSTEM_PROMPT },
          { role: "user", content: user },
        ],
        temperature: options.temperature ?? 0,
        seed: options.seed ?? 42,
        ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
      });
      content = reply.content;
      if (reply.usage) {
        usage.prompt_tokens += reply.usage.prompt_tokens;
        usage.completion_tokens += reply.usage.completion_tokens;
      }
    } catch (e) {
      // The client already retried what can be retried.
      return {
        ...base,
        status: "error",
        score: null,
        reason: "",
        nl_assertion_verdicts: [],
        attempts,
        error: `the judge request failed: ${(e as Error)?.message ?? e}`,
        usage,
      };
    }
    const parsed = parseJudgeReply(content);
    if (typeof parsed === "string") {
      problem = parsed;
      continue;
    }
    lastReply = parsed;
    last = normaliseVerdicts(parsed.verdicts, assertions);
    if (!last.incomplete) break;
  }
  if (lastReply === undefined || last === undefined) {
    return {
      ...base,
      status: "error",
      score: null,
      reason: "",
      nl_assertion_verdicts: [],
      attempts,
      error: `no usable reply after ${attempts} attempt(s): ${problem}`,
      usage,
    };
  }
  return {
    ...base,
    status: "completed",
    score: lastReply.score,
    reason: lastReply.reason,
    nl_assertion_verdicts: last.verdicts,
    ...(last.incomplete ? { incomplete: true } : {}),
    attempts,
    usage,
  };
}

interface ParsedReply {
  score: number;
  reason: string;
  verdicts: unknown;
}

/**
 * The judge's JSON object: the whole reply, else the first fenced code block, else the
 * outermost braces, else a flat object holding `"score"`. A string says why none parsed.
 */
export function parseJudgeReply(content: string): ParsedReply | string {
  const candidates: string[] = [content.trim()];
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(content);
  if (fenced) candidates.push(fenced[1]!.trim());
  const first = content.indexOf("{");
  const lastBrace = content.lastIndexOf("}");
  if (first >= 0 && lastBrace > first) candidates.push(content.slice(first, lastBrace + 1));
  const flat = /\{[^{}]*"score"[^{}]*\}/.exec(content);
  if (flat) candidates.push(flat[0]);
  for (const text of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const obj = value as Record<string, unknown>;
    const score = typeof obj.score === "string" && obj.score.trim() !== ""
      ? Number(obj.score)
      : obj.score;
    if (typeof score !== "number" || !Number.isFinite(score)) {
      return `the reply has no numeric "score": ${_snippet(content)}`;
    }
    if (score < 0 || score > 1) {
      // Asked for 0 to 1: anything else is a reply that did not follow the format.
      return `the reply's "score" ${score} is outside 0 to 1: ${_snippet(content)}`;
    }
    return {
      score,
      reason: typeof obj.reason === "string" ? obj.reason : "",
      verdicts: obj.nl_assertion_verdicts,
    };
  }
  return `the reply is not a JSON object: ${_snippet(content)}`;
}

/**
 * Exactly one verdict per assertion, in order: entries with a non-integer or
 * out-of-range `index` are dropped, the first entry for an index wins, `passed` is true
 * only when it is literally `true`, and a missing verdict fails.
 */
export function normaliseVerdicts(
  raw: unknown,
  assertions: readonly string[],
): { verdicts: NlVerdict[]; incomplete: boolean } {
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const entry of Array.isArray(raw) ? raw : []) {
    if (typeof entry !== "object" || entry === null) continue;
    const index = (entry as Record<string, unknown>).index;
    if (typeof index !== "number" || !Number.isInteger(index)) continue;
    if (index < 1 || index > assertions.length || byIndex.has(index)) continue;
    byIndex.set(index, entry as Record<string, unknown>);
  }
  let incomplete = false;
  const verdicts = assertions.map((assertion, i) => {
    const entry = byIndex.get(i + 1);
    if (entry === undefined) {
      incomplete = true;
      return { index: i + 1, assertion, passed: false, reason: MISSING_VERDICT_REASON };
    }
    return {
      index: i + 1,
      assertion,
      passed: entry.passed === true,
      reason: typeof entry.reason === "string" ? entry.reason : "",
    };
  });
  return { verdicts, incomplete };
}

function _snippet(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}...` : flat);
}
