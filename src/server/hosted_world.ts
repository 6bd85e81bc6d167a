/**
 * The world a reference-style client loads into a session: the shared state of
 * `apply_initialization` (within a byte budget), the database it names, and the
 * Environment the session's tool calls then run on. Answers `apply_initialization`,
 * `apply_sync_delta` and `get_scenario_summary` as the reference bot does
 * (reference-harness.md §1.10), and reads `update_system_prompt`'s `tools`.
 *
 * @module
 */
import type { ToolSpec } from "../bridge/call.ts";
import { dbHashOrNull } from "../canonical/hash.ts";
import type { Db, Domain, Side } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import { type CallResult, Environment } from "../env/environment.ts";
import { toolSpecs } from "../bridge/tool_specs.ts";
import {
  type ApplyInitializationArgsSchema,
  type ApplyResult,
  type ApplySyncDeltaArgsSchema,
  InitActionArgSchema,
  type ScenarioSummary,
  SharedStateInitSchema,
  SharedStateWorldSchema,
  SyncDeltaSchema,
  ToolsArgSchema,
} from "../protocol/handlers.ts";
import { issues } from "../protocol/messages.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { jsonBytes } from "./context_history.ts";
import { z } from "zod";

/** The scenario schema's default "today", for worlds loaded without one. */
const DEFAULT_TODAY = "2024-05-15";
/** Default byte budget of one session's shared state. */
export const DEFAULT_MAX_SHARED_STATE_BYTES = 4 * 2 ** 20;

export interface HostedWorldOptions {
  /** Where `apply_initialization` finds `db_path`; without it, paths are refused. */
  dataRoot?: DataRoot;
  /** Domain lookup (tests inject their own). */
  domains?: (id: string) => Promise<Domain>;
  /** Bytes (UTF-8 JSON) of shared state kept per scenario. */
  maxSharedStateBytes?: number;
  log?: (line: string) => void;
}

/** Refused because a per-session byte budget would be exceeded (an `error-response`). */
class BudgetError extends Error {
  override readonly name = "BudgetError";
}

/** One session's world. */
export class HostedWorld {
  readonly #options: HostedWorldOptions;
  #env?: Environment;
  /**
   * Shared state, as its size in bytes by key: nothing reads the values (the world is
   * loaded from `db`/`db_path`), so only what they would hold is kept, for the budget.
   */
  #sharedState = new Map<string, number>();
  #sharedStateBytes = 0;

  constructor(options: HostedWorldOptions) {
    this.#options = options;
  }

  /** The loaded Environment, if a client loaded a world. */
  get env(): Environment | undefined {
    return this.#env;
  }

  /** A new scenario: as the reference, shared state is cleared (and the world with it). */
  clear(): void {
    this.#env = undefined;
    this.#sharedState = new Map();
    this.#sharedStateBytes = 0;
  }

  /**
   * The tool specs `update_system_prompt.tools` names: our list of specs, or the
   * reference's `{toolName: ctorKwargs}`, whose specs come from the domain.
   */
  async toolSpecs(json: string, domainId: string, side: Side): Promise<ToolSpec[]> {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new Error(`tools is not valid JSON: ${(e as Error).message}`);
    }
    const tools = ToolsArgSchema.parse(value);
    if (Array.isArray(tools)) return tools;
    const names = Object.keys(tools);
    if (names.length === 0) return [];
    const domain = await this.domain(domainId);
    const missing = names.filter((n) =>
      !domain.tools.some((t) => t.side === side && (t.name === n || t.aliases?.includes(n)))
    );
    if (missing.length > 0) {
      throw new Error(`unknown ${side} tools in domain ${domainId}: ${missing.join(", ")}`);
    }
    return toolSpecs(domain, side, names);
  }

  /** `apply_initialization`, for the bot of `side`, in the domain of the current setup. */
  async applyInitialization(
    args: z.infer<typeof ApplyInitializationArgsSchema>,
    context: { side: Side; domain?: string; seed: string },
  ): Promise<ApplyResult> {
    let json: unknown;
    try {
      json = JSON.parse(args.shared_state_init);
    } catch (e) {
      return failure(`shared_state_init is not valid JSON: ${(e as Error).message}`);
    }
    const init = SharedStateInitSchema.safeParse(json);
    if (!init.success) return failure(init.error.issues[0]!.message);
    const world = SharedStateWorldSchema.safeParse(init.data);
    if (!world.success) return failure(world.error.issues[0]!.message);
    const fields = new Map(Object.entries(init.data));
    fields.delete("db");
    fields.delete("db_path");
    this.#mergeSharedState(fields);
    if (!Array.isArray(args.actions)) return failure("actions must be a list");
    const actions = [];
    for (const [i, a] of args.actions.entries()) {
      const parsed = InitActionArgSchema.safeParse(a);
      if (!parsed.success) return failure(`actions[${i}]: ${issues(parsed.error)}`);
      // The record's side is ignored bot-side: a bot's actions run on its own database.
      actions.push({
        side: context.side,
        func_name: parsed.data.func_name,
        arguments: parsed.data.arguments,
      });
    }

    const { db: inlineDb, db_path: dbPath, today } = world.data;
    let db: Db | undefined;
    if (inlineDb !== undefined) db = inlineDb as Db;
    else if (dbPath !== undefined) {
      if (!this.#options.dataRoot) return failure("this server has no data root for db_path");
      try {
        db = this.#options.dataRoot.db(dbPath);
      } catch (e) {
        return failure(`db_path ${JSON.stringify(dbPath)}: ${describe(e, false)}`);
      }
    }
    if (db !== undefined) {
      const domainId = args.domain !== "default" ? args.domain : context.domain ?? args.domain;
      let domain: Domain;
      try {
        domain = await this.domain(domainId);
      } catch (e) {
        return failure(describe(e, false));
      }
      const state = context.side === "user" ? { db: {}, user_db: db } : { db };
      this.#env = new Environment(domain, state, {
        today: typeof today === "string" ? today : DEFAULT_TODAY,
        seed: context.seed,
      });
    }
    if (actions.length === 0) return { success: true, errors: [] };
    const env = this.#env;
    if (!env) return failure("initialization actions need a db");
    // Each name is checked as an own key of the domain's functions before it runs, so
    // `constructor` or `__proto__` from a client is an unknown function, not a member.
    const known = env.domain.initFunctions?.[context.side] ?? {};
    const errors: string[] = [];
    for (const action of actions) {
      if (!Object.hasOwn(known, action.func_name)) {
        errors.push(`${action.func_name}: unknown ${context.side} initialization function`);
        continue;
      }
      errors.push(...env.initialize([action]).errors);
    }
    return { success: errors.length === 0, errors };
  }

  /** `apply_sync_delta` on the database of `side`. */
  applySyncDelta(args: z.infer<typeof ApplySyncDeltaArgsSchema>, side: Side): ApplyResult {
    const delta = SyncDeltaSchema.safeParse(args.delta);
    if (!delta.success) return failure(delta.error.issues[0]!.message);
    if (!this.#env) return failure("no db: send apply_initialization first");
    const r = this.#env.applyDelta(side, delta.data);
    if (r.skipped) this.#options.log?.(`apply_sync_delta: ${r.skipped} (the rest skipped)`);
    return { success: r.success, errors: r.errors };
  }

  /** `get_scenario_summary` of the database of `side`. */
  summary(includeDb: boolean, side: Side): ScenarioSummary {
    try {
      const db = this.#env ? (side === "user" ? this.#env.userDb : this.#env.db) : undefined;
      const present = db !== undefined && Object.keys(db).length > 0;
      const summary: ScenarioSummary = {
        actions: this.#env ? [...this.#env.actions] : [],
        db_hash: present ? dbHashOrNull(db) : null,
      };
      if (includeDb) summary.db = present ? db : null;
      return summary;
    } catch (e) {
      this.#options.log?.(`get_scenario_summary failed: ${describe(e)}`);
      return { actions: [], db_hash: null };
    }
  }

  /** Runs a tool on the loaded world (there must be one: see `env`). */
  call(side: Side, name: string, args: unknown): CallResult {
    if (!this.#env) throw new Error("no world loaded");
    return this.#env.call(side, name, args);
  }

  /**
   * The domain a client named. Whatever the lookup returns must be a domain with that
   * very id: a name such as `constructor` can never stand in for one.
   */
  async domain(id: string): Promise<Domain> {
    const domain: unknown = await (this.#options.domains ?? getDomain)(id);
    if (!isDomain(domain) || domain.id !== id) throw new Error(`unknown domain "${id}"`);
    return domain;
  }

  /** Merges shared state keys; past the byte budget nothing changes and the request fails. */
  #mergeSharedState(fields: ReadonlyMap<string, unknown>): void {
    const budget = this.#options.maxSharedStateBytes ?? DEFAULT_MAX_SHARED_STATE_BYTES;
    const sized = [...fields].map(([key, value]) => ({ key, bytes: jsonBytes({ [key]: value }) }));
    let total = this.#sharedStateBytes;
    for (const { key, bytes } of sized) total += bytes - (this.#sharedState.get(key) ?? 0);
    if (total > budget) {
      throw new BudgetError(
        `shared state would hold ${total} bytes, over this session's budget of ${budget}; ` +
          "update_system_prompt starts a new scenario with empty shared state",
      );
    }
    for (const { key, bytes } of sized) this.#sharedState.set(key, bytes);
    this.#sharedStateBytes = total;
  }
}

function failure(error: string): ApplyResult {
  return { success: false, errors: [error] };
}

/** `<ErrorName>: <message>`, as the reference reports handler exceptions. */
export function describe(e: unknown, withName = true): string {
  if (e instanceof z.ZodError) return `Invalid arguments: ${issues(e)}`;
  if (e instanceof Error) return withName ? `${e.name}: ${e.message}` : e.message;
  return String(e);
}

function isDomain(value: unknown): value is Domain {
  return typeof value === "object" && value !== null &&
    typeof (value as Domain).id === "string" && Array.isArray((value as Domain).tools);
}
