/**
 * Re-exports of `src/problem/problem.ts` for the commands (the library imports it
 * from there).
 *
 * @module
 */
export {
  closest,
  CLOSEST_MAX_CANDIDATES,
  CLOSEST_MAX_NAME_CHARS,
  CLOSEST_MAX_STEPS,
  formatProblem,
  InputError,
} from "../problem/problem.ts";
export type { Problem } from "../problem/problem.ts";
