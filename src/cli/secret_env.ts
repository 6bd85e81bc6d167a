/**
 * An API key named by a flag (`--api-key-env NAME`): read it, or say why it cannot be
 * read. Deno refuses variables the task did not allow, and a key that silently goes
 * missing would turn into confusing 401s from the model server.
 *
 * @module
 */
import type { Io } from "./io.ts";
import { InputError } from "../problem/problem.ts";

/** The variable `name` (named by `flag`), or why this run cannot read it. */
export function readKeyEnv(io: Pick<Io, "env">, name: string, flag: string): string | undefined {
  const value = io.env(name);
  if (value !== undefined) return value;
  const state = Deno.permissions.querySync({ name: "env", variable: name }).state;
  if (state !== "granted") {
    throw new InputError({
      field: flag,
      message: `cannot read the environment variable ${name}: this run may not read it`,
      hint:
        `add it to --allow-env (deno task cli allows OPENAI_API_KEY and JUDGE_API_KEY), or use one of those`,
    });
  }
  return undefined;
}

/**
 * `io.env`, except that the variable named by `flag` (`keyEnv`, when given) is read
 * with {@link readKeyEnv}: one that this run may not read is an input error naming
 * the flag, never a key that silently goes missing.
 */
export function envWithKey(
  io: Pick<Io, "env">,
  keyEnv: string | undefined,
  flag: string,
): (name: string) => string | undefined {
  return (name) =>
    keyEnv !== undefined && name === keyEnv ? readKeyEnv(io, name, flag) : io.env(name);
}
