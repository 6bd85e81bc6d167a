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

Deno.test("a scaffolded file run against another data root's world is a located error in validate and eval", async () => {
  const { run } = await import("../../cli.ts");
  const { BUNDLED_DATA_ROOT } = await import("../scenario/data_root.ts");
  // A data root whose retail world differs from the bundled one (one more user).
  const other = await Deno.makeTempDir({ prefix: "callbench-root-" });
  const out = await Deno.makeTempDir({ prefix: "callbench-scaffold-world-" });
  try {
    await Deno.mkdir(join(other, "tau2_retail"));
    for await (const e of Deno.readDir(join(BUNDLED_DATA_ROOT, "tau2_retail"))) {
      let text = await Deno.readTextFile(join(BUNDLED_DATA_ROOT, "tau2_retail", e.name));
      if (e.name === "db.json") {
        const db = JSON.parse(text);
        db.users.extra_user_1 = {
          ...Object.values(db.users)[0] as object,
          user_id: "extra_user_1",
        };
        text = JSON.stringify(db);
      }
      await Deno.writeTextFile(join(other, "tau2_retail", e.name), text);
    }
    const io = memoryIo();
    assert.equal(
      await command.main(["--domain", "tau2_retail", "--out", out, "--data-root", other], io),
      0,
      io.stderr.join("\n"),
    );
    const file = join(out, "tau2_retail__0.yaml");
    const text = await Deno.readTextFile(file);
    const line = text.split("\n").findIndex((l) => /^\s+sha256: [0-9a-f]{64}$/.test(l)) + 1;
    assert.ok(line > 0, text);

    // Against its own data root: valid.
    const ok = memoryIo();
    assert.equal(await run(["validate", "--data-root", other, file], ok), 0, ok.stderr.join("\n"));
    // Without --data-root (the bundled fixtures hold another retail world): refused, located.
    const bad = memoryIo();
    assert.equal(await run(["validate", file], bad), 2);
    assert.match(
      bad.stderr[0]!,
      new RegExp(
        `^${file}:${line}: tau2_retail__0: field "world\\.db\\.sha256": the world "tau2_retail/db\\.json" in the data root .*fixtures is not the one recorded`,
      ),
    );
    const ev = memoryIo();
    assert.equal(await run(["eval", file, "--agent", "oracle"], ev), 2);
    assert.deepEqual(ev.stdout, []);
    assert.match(ev.stderr.join("\n"), /field "world\.db\.sha256": .* not the one recorded/);

    // A data root without the world at all: located too.
    const empty = await Deno.makeTempDir();
    try {
      const none = memoryIo();
      assert.equal(await run(["validate", "--data-root", empty, file], none), 2);
      assert.match(none.stderr[0]!, /field "world\.db\.path": no database "tau2_retail\/db\.json"/);
      assert.match(none.stderr[0]!, new RegExp(`^${file}:\\d+: `));
    } finally {
      await Deno.remove(empty);
    }
  } finally {
    await Deno.remove(other, { recursive: true });
    await Deno.remove(out, { recursive: true });
  }
});
