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

export interface LoadResult {
  scenarios: Scenario[];
  problems: Problem[];
}

/** A scenario's gold: the expected end state and the calls that reach it. */
export interface Gold {
  name: string;
  domain: string;
  expected_db_sha256: string | null;
  expected_user_db_sha256?: string | null;
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
}

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
