/**
 * One trial's live world. The loaded world is frozen and shared; each tool call runs
 * in a {@linkcode Transaction} over it and is committed only when the tool succeeds,
 * so a trial's copy costs nothing up front, a failed call changes nothing, and a
 * call costs the same on a table of any size. Consumers see the world frozen: it is
 * sealed when one looks (`db`, `userDb`, `hashes`, `evaluate`).
 *
 * @module
 */
import type {
  ActionRecord,
  Db,
  Domain,
  Side,
  SyncDeltas,
  ToolContext,
  ToolDef,
  ToolErrorResult,
} from "../domains/domain.ts";
import { findTool, ownEntry } from "../domains/domain.ts";
import { dbHashOrNull, sha256Hex } from "../canonical/hash.ts";
import { deepFreeze } from "./deep_freeze.ts";
import { pythonEquals } from "./python_equals.ts";
import { seal, Transaction } from "./transaction.ts";

/** A world: the agent's database and, in dual-control domains, the user's phone. */
export interface World {
  db: Db;
  user_db?: Db;
}

interface State extends World {
  counters: Record<string, number>;
}

export interface EnvironmentOptions {
  /** The scenario's "today" (YYYY-MM-DD). */
  today: string;
  /** Seeds minted ids (UUIDs); the same seed gives the same world. */
  seed: string;
}

/** What a tool call did. `record` is side-stamped and already in `actions`. */
export interface CallResult {
  ok: boolean;
  /** The tool's canonical name, or the name as called when unknown. */
  tool: string;
  result: unknown;
  record?: ActionRecord;
  exit?: string;
  /** Dual-control domains: the cross-side sync that followed the write, per side. */
  sync?: SyncDeltas;
}

export interface InitAction {
  side: Side;
  func_name: string;
  arguments?: Record<string, unknown>;
}

export interface DbStateAssertion {
  side: Side;
  func_name: string;
  arguments?: Record<string, unknown>;
  assert_value: unknown;
  message?: string | null;
}

/** One `db_state_assertion` evaluated on a final state. */
export interface AssertionVerdict {
  /** The predicate's name. */
  func_name: string;
  /** The side whose database it was evaluated on. */
  side: Side;
  /** Whether the predicate's value equals `expected` (Python equality). */
  passed: boolean;
  /** The assertion's `assert_value`. */
  expected: unknown;
  /** What the predicate returned (`null` when it could not run). */
  actual: unknown;
  /** The assertion's own message, if it has one. */
  message: string | null;
  /** Why the predicate could not be evaluated (unknown predicate, no database, a throw). */
  error: string | null;
}

export class Environment {
  readonly domain: Domain;
  readonly options: EnvironmentOptions;
  /** Action records of successful write calls, side-stamped, in order. */
  readonly actions: ActionRecord[] = [];
  /** The world; between calls it may hold owned, unfrozen objects until sealed. */
  #state: State;
  #sealed = true;

  constructor(domain: Domain, world: World, options: EnvironmentOptions) {
    this.domain = domain;
    this.options = options;
    this.#state = deepFreeze({ ...world, counters: {} });
  }

  /** The agent's database now (frozen). */
  get db(): Db {
    return this.#world().db;
  }

  /** The user's database now (frozen), in dual-control domains. */
  get userDb(): Db | undefined {
    return this.#world().user_db;
  }

  /** The tool a side may call by this name or alias. */
  tool(side: Side, name: string): ToolDef | undefined {
    return findTool(this.domain, side, name);
  }

  /** Runs one tool call as a transaction. Never throws. */
  call(side: Side, name: string, args: unknown): CallResult {
    const tool = this.tool(side, name);
    if (!tool) return { ok: false, tool: name, result: this.#unknownTool(side, name) };
    const parsed = tool.args.safeParse(args ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        tool: tool.name,
        result: this.domain.validationError(tool, parsed.error, args),
      };
    }
    const tx = new Transaction(this.#state);
    const draft = tx.draft as unknown as State;
    const db = (tool.world ?? side) === "user" ? draft.user_db : draft.db;
    if (!db) {
      return { ok: false, tool: tool.name, result: dbNotInitialized() };
    }
    let outcome;
    try {
      outcome = tool.run(parsed.data, this.#context(draft, db as Db));
    } catch (e) {
      tx.rollback();
      return { ok: false, tool: tool.name, result: internalError(e) };
    }
    if (!outcome.ok) {
      const failed = jsonCopy(outcome.result);
      tx.rollback();
      return { ok: false, tool: tool.name, result: failed };
    }
    let result, record;
    try {
      result = jsonCopy(outcome.result);
      record = outcome.record ? { ...jsonCopy(outcome.record), side } : undefined;
    } catch (e) {
      tx.rollback();
      throw e;
    }
    this.#commit(tx);
    let sync: SyncDeltas | undefined;
    if (record) {
      this.actions.push(record);
      sync = this.sync();
    }
    return {
      ok: true,
      tool: tool.name,
      result,
      record,
      exit: outcome.exit,
      ...(sync ? { sync } : {}),
    };
  }

  /**
   * Applies initialisation actions in order, each on its side's database. Errors are
   * collected and the rest go on; nothing is rolled back (as the reference).
   */
  initialize(actions: readonly InitAction[]): { success: boolean; errors: string[] } {
    const errors: string[] = [];
    if (actions.length === 0) return { success: true, errors };
    const tx = new Transaction(this.#state);
    const draft = tx.draft as unknown as State;
    for (const action of actions) {
      const db = (action.side === "user" ? draft.user_db : draft.db) as Db | undefined;
      const fn = ownEntry(this.domain.initFunctions, action.side, action.func_name);
      if (!db) {
        errors.push(`${action.func_name}: no ${action.side} database`);
      } else if (!fn) {
        errors.push(`${action.func_name}: unknown ${action.side} initialization function`);
      } else {
        try {
          fn(db, action.arguments ?? {}, this.#context(draft, db));
        } catch (e) {
          errors.push(`${action.func_name}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    this.#commit(tx);
    return { success: errors.length === 0, errors };
  }

  /** Brings the two sides in line (dual-control domains); returns what changed. */
  sync(): SyncDeltas | undefined {
    const { domain } = this;
    if (!domain.sync || !this.#state.user_db) return undefined;
    const tx = new Transaction(this.#state);
    const draft = tx.draft as unknown as State;
    let deltas;
    try {
      deltas = domain.sync(draft.db as Db, draft.user_db as Db);
      if (Object.keys(deltas.agent).length > 0) {
        domain.applyDelta?.(draft.db as Db, deltas.agent, "agent");
      }
      if (Object.keys(deltas.user).length > 0) {
        domain.applyDelta?.(draft.user_db as Db, deltas.user, "user");
      }
    } catch (e) {
      tx.rollback();
      throw e;
    }
    this.#commit(tx);
    return deltas;
  }

  /**
   * Applies a sync delta to one side's database, as a bot's `apply_sync_delta` does:
   * the domain's applier, else dotted paths whose intermediate keys must exist (each
   * a key of an object, as a Python dict lookup). As the reference bot, an applier
   * that fails is logged, not raised: the paths set before it stay set, the rest are
   * skipped, and the reply is still a success; `skipped` says why.
   */
  applyDelta(
    side: Side,
    delta: Record<string, unknown>,
  ): { success: boolean; errors: string[]; skipped?: string } {
    const tx = new Transaction(this.#state);
    const draft = tx.draft as unknown as State;
    const db = (side === "user" ? draft.user_db : draft.db) as Db | undefined;
    if (!db) return { success: false, errors: [`no ${side} database`] };
    let skipped: string | undefined;
    try {
      if (this.domain.applyDelta) this.domain.applyDelta(db, delta, side);
      else setDottedPaths(db, delta);
    } catch (e) {
      skipped = e instanceof Error ? e.message : String(e);
    }
    // As the reference: the paths set before a failure stay set.
    this.#commit(tx);
    return { success: true, errors: [], ...(skipped !== undefined ? { skipped } : {}) };
  }

  /** Evaluates state assertions against the current world. */
  evaluate(assertions: readonly DbStateAssertion[]): AssertionVerdict[] {
    const state = this.#world();
    return assertions.map((a) => {
      const verdict = {
        func_name: a.func_name,
        side: a.side,
        passed: false,
        expected: a.assert_value,
        actual: null as unknown,
        message: a.message ?? null,
        error: null as string | null,
      };
      const db = a.side === "user" ? state.user_db : a.side === "agent" ? state.db : 0;
      const predicate = ownEntry(this.domain.predicates, a.side, a.func_name);
      if (db === 0) return { ...verdict, error: `unknown side ${JSON.stringify(a.side)}` };
      if (!db) return { ...verdict, error: `no ${a.side} database` };
      if (!predicate) return { ...verdict, error: `unknown predicate ${a.func_name}` };
      try {
        const actual = predicate(db, a.arguments ?? {});
        return { ...verdict, actual, passed: pythonEquals(actual, a.assert_value) };
      } catch (e) {
        return { ...verdict, error: e instanceof Error ? e.message : String(e) };
      }
    });
  }

  /** The canonical hashes of both sides (`null` for a missing or empty DB). */
  hashes(): { db_sha256: string | null; user_db_sha256?: string | null } {
    const state = this.#world();
    const out: { db_sha256: string | null; user_db_sha256?: string | null } = {
      db_sha256: dbHashOrNull(state.db),
    };
    if (state.user_db !== undefined) out.user_db_sha256 = dbHashOrNull(state.user_db);
    return out;
  }

  /** The world now, frozen: sealed first if a call changed it since the last look. */
  #world(): State {
    if (!this.#sealed) {
      this.#state = seal(this.#state);
      this.#sealed = true;
    }
    return this.#state;
  }

  #commit(tx: Transaction): void {
    this.#state = tx.commit() as State;
    if (tx.changed) this.#sealed = false;
  }

  #context(draft: State, db: Db): ToolContext {
    const { seed, today } = this.options;
    const next = (counter: string) => {
      const n = (draft.counters[counter] ?? 0) + 1;
      draft.counters[counter] = n;
      return n;
    };
    return {
      db,
      today,
      next,
      count: (counter) => draft.counters[counter] ?? 0,
      uuid: (label) => uuidFrom(`${seed}\n${label}\n${next(`uuid:${label}`)}`),
    };
  }

  #unknownTool(side: Side, name: string): ToolErrorResult {
    const available = this.domain.tools.filter((t) => t.side === side).map((t) => t.name).sort();
    return {
      status: "error",
      error_type: "unknown_tool",
      message: `There is no tool named '${name}'. Use one of the available tools.`,
      available_tools: available,
    };
  }
}

/** A UUID in v4 layout whose bits come from SHA-256 of `text`. */
export function uuidFrom(text: string): string {
  const h = sha256Hex(text);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${
    h.slice(20, 32)
  }`;
}

/**
 * What the LLM sees for a raw tool result: the reference never lets a falsy result
 * through (reference-harness §1.11).
 */
export function deliverableResult(result: unknown): unknown {
  if (Array.isArray(result) && result.length === 0) {
    return { status: "success", results: [], count: 0, message: "No matching records found." };
  }
  if (
    typeof result === "object" && result !== null && !Array.isArray(result) &&
    Object.keys(result).length === 0
  ) {
    return { status: "success", results: {}, message: "No matching records found." };
  }
  if (
    result === null || result === undefined || result === "" || result === 0 || result === false
  ) {
    return {
      status: "success",
      result: result ?? null,
      message: "Completed with no data returned.",
    };
  }
  return result;
}

/**
 * The reference's default applier: for each `a.b.c`, walk `a` then `b` as keys of
 * objects (a missing key, an array or a scalar on the way raises), then set `c` on the
 * object reached. The first failure stops the loop, as the exception does there.
 */
function setDottedPaths(db: Db, delta: Record<string, unknown>): void {
  const isDict = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  for (const [path, value] of Object.entries(delta)) {
    const keys = path.split(".");
    let node: unknown = db;
    for (const key of keys.slice(0, -1)) {
      if (!isDict(node) || !Object.hasOwn(node, key)) throw new Error(`path not found: ${path}`);
      node = node[key];
    }
    const last = keys[keys.length - 1]!;
    if (!isDict(node)) throw new Error(`path not found: ${path}`);
    if (last === "__proto__") throw new Error(`path not settable: ${path}`);
    node[last] = value;
  }
}

function jsonCopy<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

function dbNotInitialized(): ToolErrorResult {
  return {
    status: "error",
    error_type: "db_not_initialized",
    message: "The database is not initialized for this scenario.",
  };
}

function internalError(e: unknown): ToolErrorResult {
  return {
    status: "error",
    error_type: "internal_error",
    message: e instanceof Error ? e.message : String(e),
  };
}
