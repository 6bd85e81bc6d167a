import assert from "node:assert/strict";
import { modelSettings } from "./model_settings.ts";

const ENV: Record<string, string> = {
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  OPENAI_API_KEY: "sk-env",
  MY_KEY: "sk-mine",
  CALLBENCH_AGENT_MODEL: "agent-model",
  CALLBENCH_USER_MODEL: "user-model",
};
const get = (name: string) => ENV[name];

Deno.test("modelSettings() prefers flags, then the environment, per role", () => {
  assert.deepEqual(modelSettings("agent", {}, get), {
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "sk-env",
    model: "agent-model",
  });
  assert.deepEqual(modelSettings("user", {}, get).model, "user-model");
  assert.deepEqual(
    modelSettings("user", { model: "m", baseUrl: "http://h/v1", apiKeyEnv: "MY_KEY" }, get),
    { baseUrl: "http://h/v1", apiKey: "sk-mine", model: "m" },
  );
  assert.deepEqual(modelSettings("agent", {}, () => undefined), {
    baseUrl: undefined,
    apiKey: undefined,
    model: undefined,
  });
});

Deno.test("modelSettings() reads the key from the variable the flag names, only that one", () => {
  const asked: string[] = [];
  modelSettings("agent", { apiKeyEnv: "MY_KEY" }, (name) => {
    asked.push(name);
    return ENV[name];
  });
  assert.deepEqual(asked.sort(), ["CALLBENCH_AGENT_MODEL", "MY_KEY", "OPENAI_BASE_URL"]);
});
