import assert from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { command } from "./scaffold.ts";
import { loadScenarioFiles } from "../scenario/files.ts";

Deno.test("scaffold writes one file per eva scenario and a manifest line each, idempotently", async () => {
  const out = await Deno.makeTempDir({ prefix: "callbench-scaffold-cmd-" });
  try {
    const io = memoryIo();
    assert.equal(await command.main(["--domain", "eva_airline", "--out", out], io), 0);
    const manifest = io.stdout.map((l) => JSON.parse(l));
    assert.deepEqual(manifest.map((m) => [m.scenario, m.status]), [
      ["eva_airline__1_4_1", "written"],
      ["eva_airline__2_5_1", "written"],
      ["eva_airline__5_3_1", "written"],
      ["eva_airline__7_5_1", "written"],
    ]);
    assert.equal(manifest[0].file, join(out, "eva_airline__1_4_1.yaml"));
    const again = memoryIo();
    assert.equal(await command.main(["--domain", "eva_airline", "--out", out], again), 0);
    assert.ok(again.stdout.every((l) => JSON.parse(l).status === "unchanged"));
    const loaded = await loadScenarioFiles([out]);
    assert.deepEqual(loaded.problems, []);
    assert.equal(loaded.scenarios.length, 4);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("scaffold needs a known domain and an output folder", async () => {
  await assert.rejects(() => command.main(["--domain", "eva_airline"], memoryIo()), InputError);
  await assert.rejects(
    () => command.main(["--domain", "eva_airlin", "--out", "x"], memoryIo()),
    (e: InputError) => e.problems[0]!.hint === 'did you mean "eva_airline"?',
  );
  await assert.rejects(() => command.main(["--out", "x"], memoryIo()), InputError);
});

Deno.test("deno task scaffold exists, names its permissions and writes the files", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const task = config.tasks.scaffold?.command as string | undefined;
  assert.ok(task, "no scaffold task in deno.json");
  assert.ok(!/(^|\s)(-A|--allow-all)(\s|$)/.test(task), task);
  assert.match(task, /cli\.ts scaffold$/);
  const out = await Deno.makeTempDir({ prefix: "callbench-scaffold-task-" });
  try {
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "scaffold", "--domain", "tau2_telecom", "--out", out],
      cwd: new URL("../../", import.meta.url),
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const err = new TextDecoder().decode(child.stderr);
    assert.equal(child.code, 0, err);
    const lines = new TextDecoder().decode(child.stdout).trim().split("\n");
    assert.equal(lines.length, 3, err);
    assert.ok(lines.every((l) => JSON.parse(l).status === "written"));
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
