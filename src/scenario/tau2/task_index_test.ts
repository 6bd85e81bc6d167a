import { deepEqual, equal } from "node:assert/strict";
import { taskIndex } from "./task_index.ts";
import { MemoryDataRoot, retailFixture } from "./_testing.ts";

Deno.test("taskIndex() keeps the tasks in both the voice configs and the base split", () => {
  const index = taskIndex(retailFixture(), "tau2_retail");
  deepEqual(index.tasks.map((t) => t.task.id), ["0", "1", "2"]);
  deepEqual(index.tasks.map((t) => t.persona), ["calm_caller", "brief_caller", "calm_caller"]);
  deepEqual(index.problems, []);
});

Deno.test("taskIndex() without a split file keeps every voice task", () => {
  const root = new MemoryDataRoot({
    "d/tasks.json": JSON.stringify([{ id: "a" }, { id: "b" }, { id: "c" }]),
    "d/tasks_voice.json": JSON.stringify({ configs: { a: {}, c: {} } }),
  });
  deepEqual(taskIndex(root, "d").tasks.map((t) => t.task.id), ["a", "c"]);
});

Deno.test("taskIndex() reports a malformed task with its line and field, and keeps the rest", () => {
  const tasks =
    '[\n  {"id": "a"},\n  {"id": "b",\n   "evaluation_criteria": {"actions": [{"name": 3}]}}\n]';
  const root = new MemoryDataRoot({
    "d/tasks.json": tasks,
    "d/tasks_voice.json": JSON.stringify({ configs: { a: {}, b: {}, z: {} } }),
  });
  const index = taskIndex(root, "d");
  deepEqual(index.tasks.map((t) => t.task.id), ["a"]);
  equal(index.problems.length, 2);
  const [bad, missing] = index.problems;
  equal(bad!.line, 3);
  equal(bad!.where, 'task "b"');
  equal(bad!.field, "evaluation_criteria.actions[0].name");
  equal(missing!.where, 'task "z"');
  equal(missing!.message, "voice task not found in tasks.json");
});
