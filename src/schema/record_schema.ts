/**
 * A record schema as the library exports it: the zod schema behind it, seen through the
 * two calls a user of the records needs, with the record's own public type (so the
 * package's surface names no type of zod's).
 *
 * @module
 */

/** One problem with a value: where (the path of keys and indexes) and what. */
export interface RecordIssue {
  /** The key or index at each level, from the top. */
  path: readonly PropertyKey[];
  /** What is wrong there. */
  message: string;
  /** The kind of problem (zod's issue code). */
  code: string;
}

/** What `safeParse` returns: the record, or the problems. */
export type RecordParse<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: readonly RecordIssue[] } };

/** Parses records of type `T`. */
export interface RecordSchema<T> {
  /** The value as a record, or a thrown error naming each problem. */
  parse(value: unknown): T;
  /** The value as a record, or the problems, never thrown. */
  safeParse(value: unknown): RecordParse<T>;
}
