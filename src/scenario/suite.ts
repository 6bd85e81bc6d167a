/**
 * A suite: a named set of scenarios loaded from a data root (`eva_airline`,
 * `tau2_retail`, ...) or from scenario files. Loading never stops at a bad entry:
 * the good scenarios load and every bad one becomes a located problem.
 *
 * @module
 */
import type { Problem } from "../problem/problem.ts";
import type { DataRoot } from "./data_root.ts";
import type { ReferenceAction, Scenario } from "./scenario.ts";
import type { AssertionVerdict } from "../env/environment.ts";
import type { ActionRecord } from "../domains/domain.ts";

/** What a suite's `load` returns: the scenarios that loaded and a problem per bad entry. */
export interface LoadResult {
  /** The scenarios that loaded. */
  scenarios: Scenario[];
  /** One located problem per entry that did not load. */
  problems: Problem[];
}

/** A scenario's gold: the expected end state and the calls that reach it. */
export interface Gold {
  /** The scenario's name. */
  name: string;
  /** Its tool-registry domain. */
  domain: string;
  /** Canonical hash of the agent-side DB after the reference calls (`null`: no DB). */
  expected_db_sha256: string | null;
  /** The same for the user-side DB, where the domain has one (tau2 telecom). */
  expected_user_db_sha256?: string | null;
  /** The calls that reach the expected state, in order. */
  reference_actions: ReferenceAction[];
  /** Action records the reference calls produce, side-stamped (tau2). */
  reference_records?: ActionRecord[];
  /** `db_state_assertions` evaluated on the gold state (telecom). */
  assertions?: AssertionVerdict[];
  /** Reference calls that failed on the upstream data itself. */
  errors?: { index: number; name: string; result: unknown }[];
}

/** How much of a suite to compute at load. */
export interface LoadOptions {
  /**
   * Fill every scenario's expected hashes (`expect.db_sha256`, `expect.user_db_sha256`)
   * where the suite derives them by replaying gold (default true). `false` leaves them
   * for {@link Suite.expect}, for the scenarios that need them.
   */
  expected?: boolean;
  /**
   * The culture to load scenarios in, where a suite has several (EVA-Bench's release:
   * en, es, fr, fr-CA, de, hi, ko); default English.
   */
  language?: string;
}

/** A named set of scenarios: where its data lives, how it loads, and its gold. */
export interface Suite {
  /** Name prefix and aggregation bucket, e.g. `tau2_telecom_workflow`. */
  readonly id: string;
  /** Tool-registry domain, e.g. `tau2_telecom`. */
  readonly domain: string;
  /** Whether the data root holds this suite's data. */
  present(root: DataRoot): boolean;
  /** Every scenario of the suite, in the reference's order. */
  load(root: DataRoot, options?: LoadOptions): Promise<LoadResult>;
  /**
   * Fills the expected hashes of these scenarios of this suite, once per process
   * (a no-op where loading computes them anyway).
   */
  expect(root: DataRoot, scenarios: readonly Scenario[]): Promise<void>;
  /** The gold of one scenario of this suite. */
  gold(root: DataRoot, scenario: Scenario): Promise<Gold>;
  /**
   * The scenario's own name when `name` is another name for it (eva's
   * `eva_airline__1_1_2` for `eva_airline__voluntary_date_change`), else undefined.
   */
  canonicalName?(name: string): string | undefined;
}
