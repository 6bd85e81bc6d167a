/**
 * What a domain is: a world's tools, and where the benchmark has them, predicates,
 * initialisation functions and cross-side sync. Tools are pure functions over a
 * mutable draft of their side's database; the Environment runs each call as a
 * transaction, so a tool that fails changes nothing.
 *
 * @module
 */
import type { z } from "zod";
import type { HashVariant } from "../canonical/hash_variant.ts";

/** One end of a call: the agent under test or the (simulated) caller. */
export type Side = "agent" | "user";

/** A database document: plain JSON. */
export type Db = Record<string, unknown>;

/** An action record as the reference writes it (eva: flat; tau2: name/arguments/result). */
export type ActionRecord = Record<string, unknown> & { action_type: string };

/** What a tool sees besides its arguments. */
export interface ToolContext {
  /** This side's database, as a mutable draft: write to it freely. */
  readonly db: Db;
  /** The scenario's "today" (YYYY-MM-DD), never the machine's. */
  readonly today: string;
  /**
   * The next value of a per-trial counter, starting at 1. Counters roll back with
   * the call when the tool fails.
   */
  next(counter: string): number;
  /** A per-trial counter's value now (0 if never counted), without counting. */
  count(counter: string): number;
  /** A deterministic UUID (v4 layout) drawn from the trial's seed and a counter. */
  uuid(label: string): string;
}

/** A tool's outcome. Errors are values, never exceptions thrown to the caller. */
export type ToolOutcome =
  | {
    ok: true;
    /** What the caller sees. */
    result: unknown;
    /** The action record to append (write tools only). */
    record?: ActionRecord;
    /** The call ends once this result is delivered (reference `<exit>` text). */
    exit?: string;
  }
  | { ok: false; result: ToolErrorResult };

/** The reference's structured tool error. */
export type ToolErrorResult = {
  status: "error";
  error_type: string;
  message: string;
  [extra: string]: unknown;
};

/**
 * What a tool does to the call besides returning its result; the bridge acts on it.
 * `end_call`: the agent ends the call once the result is delivered (reason
 * `agent_end`); `transfer`: the same, as a hand-over to a human (`agent_transfer`);
 * `dtmf`: the `keys` argument is pressed on the line.
 */
export type ToolEffect = "end_call" | "transfer" | "dtmf";

/** One tool of a domain: its name, schema and pure implementation. */
// A domain's tools take different arguments; `any` lets one list hold them all.
// deno-lint-ignore no-explicit-any
export interface ToolDef<A = any> {
  /** The upstream snake_case name, which the LLM sees. */
  readonly name: string;
  /** Other accepted names (the reference's class-style names). */
  readonly aliases?: readonly string[];
  /** The side whose database the tool acts on, and who may call it. */
  readonly side: Side;
  /**
   * The side whose database the tool acts on when it is not the caller's own: in
   * banking, the caller's tools act on the bank's one database (`agent`).
   */
  readonly world?: Side;
  /** `read` looks the world up, `write` changes it, `system` acts on the call. */
  readonly kind: "read" | "write" | "system";
  /** What the tool does to the call, if anything (see `ToolEffect`). */
  readonly effect?: ToolEffect;
  /** What the tool does, as the LLM sees it. */
  readonly description: string;
  /** Argument schema; unknown extra arguments are rejected where the reference does. */
  readonly args: z.ZodType<A>;
  /** Runs the tool on validated arguments; `ctx.db` is a draft a failed outcome rolls back. */
  run(args: A, ctx: ToolContext): ToolOutcome;
  /**
   * Network work a call needs done before it runs (banking's dense search embeds its
   * query), awaited by the call's bridge; a failure leaves `run` to answer the error.
   */
  warm?(args: unknown): Promise<void>;
}

/** `predicate(db, args)` returns the value compared with `assert_value`. */
export type Predicate = (db: Db, args: Record<string, unknown>) => unknown;

/** Mutates the draft in place; throws to report an error. */
export type InitFunction = (db: Db, args: Record<string, unknown>, ctx: ToolContext) => void;

/** Dotted-path deltas per side, as the reference's sync emits them. */
export type SyncDeltas = { agent: Record<string, unknown>; user: Record<string, unknown> };

/** A domain: its tools and, where the benchmark has them, predicates, init functions and sync. */
export interface Domain {
  /** Tool-registry namespace, e.g. `eva_airline`, `tau2_telecom`. */
  readonly id: string;
  /**
   * The reference whose DB hash this domain's expected states use (default `nemo`;
   * EVA-Bench's release says `eva`: src/canonical/hash_variant.ts).
   */
  readonly hashVariant?: HashVariant;
  /** Every tool of both sides, `end_conversation` included. */
  readonly tools: readonly ToolDef[];
  /** The error a tool returns when its arguments fail validation. */
  validationError(tool: ToolDef, error: z.ZodError, args: unknown): ToolErrorResult;
  /** Predicates for `db_state_assertions`, by function name (registered per side). */
  readonly predicates?: Readonly<Record<Side, Readonly<Record<string, Predicate>>>>;
  /** Initialisation functions for `initialization_actions`, by side and name. */
  readonly initFunctions?: Readonly<Record<Side, Readonly<Record<string, InitFunction>>>>;
  /**
   * Cross-side sync (telecom): the deltas that bring the two sides in line, as the
   * reference's `sync_state` computes them. The Environment then applies each side's
   * delta with `applyDelta`, as the reference's gold replay and bots do.
   */
  sync?(agentDb: Db, userDb: Db): SyncDeltas;
  /** Applies a delta from `sync` to one side's draft (the bot-side applier). */
  applyDelta?(db: Db, delta: Record<string, unknown>, side: Side): void;
  /**
   * Readies what the tools read besides the world before a scenario's Environment
   * opens, in the process that runs it (banking: its knowledge base from the data
   * root, and the retrieval variant a scenario tag names).
   */
  prepare?(files: DomainFiles, scenario: { readonly tags: readonly string[] }): void;
  /** Tools reached through another tool (banking's discoverable ones), for listings. */
  readonly discoverable?: readonly DiscoverableInfo[];
}

/** A tool a side calls through a gateway tool, as `tools` lists it. */
export interface DiscoverableInfo {
  /** The tool's name, as the gateway tool is told it. */
  name: string;
  /** The side that may call it. */
  side: Side;
  /** The tool that calls it (`call_discoverable_agent_tool`). */
  via: string;
  /** Whether it reads the world or changes it. */
  kind: "read" | "write";
  /** What it does, for the listing. */
  description: string;
  /** Its arguments: name, type as written, and whether it must be given. */
  params: readonly { name: string; type: string; required: boolean }[];
}

/** The data root as a domain sees it: paths resolved under it. */
export interface DomainFiles {
  /** The path of a file of the data root, given relative to it. */
  resolve(path: string): string;
}

/**
 * A domain's entry by side and name, own properties only: names come from scenario
 * files and clients, and `constructor` or `toString` must be unknown, not a
 * prototype's function.
 */
export function ownEntry<T>(
  bySide: Readonly<Record<string, Readonly<Record<string, T>>>> | undefined,
  side: string,
  name: string,
): T | undefined {
  if (bySide === undefined || !Object.hasOwn(bySide, side)) return undefined;
  const byName = bySide[side as Side]!;
  return Object.hasOwn(byName, name) ? byName[name] : undefined;
}

const toolIndexes = new WeakMap<Domain, Map<string, ToolDef>>();

/**
 * The tool a side may call by this name or alias (the first listed wins), through an
 * index built once per domain: a Map, so a name from input never reaches a prototype.
 */
export function findTool(domain: Domain, side: Side, name: string): ToolDef | undefined {
  let index = toolIndexes.get(domain);
  if (index === undefined) {
    index = new Map();
    for (const t of domain.tools) {
      for (const n of [t.name, ...(t.aliases ?? [])]) {
        const key = `${t.side}\n${n}`;
        if (!index.has(key)) index.set(key, t);
      }
    }
    toolIndexes.set(domain, index);
  }
  return index.get(`${side}\n${name}`);
}

let _readView: <T>(value: T) => T = (value) => value;

/**
 * Lets the trial's world say how a tool that only reads can see through the proxies
 * of a call's transaction (src/env/transaction.ts sets it when it loads). Without it a
 * read goes through the proxies, which gives the same answer, only slower; so no
 * domain depends on the environment's code.
 */
export function setReadView(view: <T>(value: T) => T): void {
  _readView = view;
}

/** The object a transaction's proxy stands for now, for reading only (see `setReadView`). */
export function readView<T>(value: T): T {
  return _readView(value);
}
