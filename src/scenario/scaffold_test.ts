import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "./data_root.ts";
import { suite } from "./eva/suite.ts";
import { loadScenarioText } from "./files.ts";
import { scaffoldFiles, scaffoldText, writeScaffold } from "./scaffold.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

Deno.test("a scaffolded eva file loads back to the same scenario as the suite loader", async () => {
  const { scenarios } = await suite.load(root);
  assert.ok(scenarios.length >= 3);
  for (const s of scenarios) {
    const loaded = await loadScenarioText(`${s.name}.yaml`, scaffoldText(s));
    assert.deepEqual(loaded.problems, []);
    assert.deepEqual(loaded.scenarios, [s]);
  }
});

Deno.test("scaffold text is editable YAML: header, multi-line prompts as literal blocks", async () => {
  const { scenarios } = await suite.load(root);
  const text = scaffoldText(scenarios[0]!);
  assert.match(
    text,
    /^# callbench scenario eva_airline__1_4_1\n# scaffolded from eva:1\.4\.1; edit freely\.\n/,
  );
  assert.match(text, /\nagent:\n {2}prompt: \|/);
  assert.match(text, /\nworld:\n {2}db:\n {4}path: eva_airline\/1\.4\.1\.json\n/);
  assert.doesNotMatch(text, /\ntags:/); // empty defaults are left out
  assert.equal(scaffoldText(scenarios[0]!), text); // deterministic
});

Deno.test("writeScaffold writes new files, leaves identical ones and keeps edited ones unless forced", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-scaffold-" });
  try {
    const { scenarios } = await suite.load(root);
    const files = scaffoldFiles(scenarios.slice(0, 2));
    const first = await writeScaffold(join(dir, "out"), files);
    assert.deepEqual(first.map((e) => e.status), ["written", "written"]);
    const [a, b] = first.map((e) => e.file) as [string, string];
    const before = await Deno.readFile(a);
    const { mtime } = await Deno.stat(a);
    const again = await writeScaffold(join(dir, "out"), files);
    assert.deepEqual(again.map((e) => e.status), ["unchanged", "unchanged"]);
    assert.deepEqual(await Deno.readFile(a), before);
    assert.deepEqual((await Deno.stat(a)).mtime, mtime);
    await Deno.writeTextFile(b, "# my edits\n");
    const kept = await writeScaffold(join(dir, "out"), files);
    assert.deepEqual(kept.map((e) => e.status), ["unchanged", "kept"]);
    assert.equal(await Deno.readTextFile(b), "# my edits\n");
    const forced = await writeScaffold(join(dir, "out"), files, { force: true });
    assert.deepEqual(forced.map((e) => e.status), ["unchanged", "written"]);
    assert.equal(await Deno.readTextFile(b), files[1]!.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
