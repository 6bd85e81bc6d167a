/**
 * Where a model's settings come from, looked up one way for every command that talks
 * to a model (`eval`'s agent and caller, `serve`'s hosted agent): a flag first, then
 * the environment (`CALLBENCH_<ROLE>_MODEL`, `OPENAI_BASE_URL`, and the API key from
 * the variable `--api-key-env` names, `OPENAI_API_KEY` by default). Flag values and the
 * environment are given as data, so this reads nothing itself; whether a variable may
 * be read is the caller's to say through `env` (the CLI refuses an API-key variable
 * the process may not read: `src/cli/secret_env.ts`).
 *
 * @module
 */

/** Whose model: the agent under test, or the simulated caller. */
export type ModelRole = "agent" | "user";

/** The variable naming each role's model when no flag does. */
export const MODEL_ENV: Readonly<Record<ModelRole, string>> = {
  agent: "CALLBENCH_AGENT_MODEL",
  user: "CALLBENCH_USER_MODEL",
};

/** The variable holding the base URL when no flag gives one. */
export const BASE_URL_ENV = "OPENAI_BASE_URL";
/** The variable holding the API key when no flag names another. */
export const DEFAULT_KEY_ENV = "OPENAI_API_KEY";

/** What the flags say (`--<role>-model`, `--base-url`, `--api-key-env`). */
export interface ModelFlags {
  model?: string;
  baseUrl?: string;
  /** The name of the variable that holds the API key. */
  apiKeyEnv?: string;
}

/** One role's model settings; a field nothing gives is `undefined`. */
export interface ModelSettings {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
}

/** The settings of `role`'s model from `flags`, else from the variables `env` reads. */
export function modelSettings(
  role: ModelRole,
  flags: ModelFlags,
  env: (name: string) => string | undefined,
): ModelSettings {
  return {
    baseUrl: flags.baseUrl ?? env(BASE_URL_ENV),
    apiKey: env(flags.apiKeyEnv ?? DEFAULT_KEY_ENV),
    model: flags.model ?? env(MODEL_ENV[role]),
  };
}
