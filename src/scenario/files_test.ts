import assert from "node:assert/strict";
import { join } from "node:path";
import { loadScenarioFiles, loadScenarioText } from "./files.ts";

const MINIMAL = `name: demo__one
domain: eva_airline
success_signals: [clean_exit]
`;

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-files-" });
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  return dir;
}

Deno.test("loadScenarioFiles reads a folder's YAML and JSON files in name order", async () => {
  const dir = await folder({
    "b.yaml": MINIMAL.replace("demo__one", "demo__b"),
    "a.yml": MINIMAL.replace("demo__one", "demo__a"),
    "c.json": JSON.stringify({
      name: "demo__c",
      domain: "eva_airline",
      success_signals: ["clean_exit"],
    }),
    "notes.txt": "not a scenario",
  });
  try {
    const r = await loadScenarioFiles([dir]);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.scenarios.map((s) => s.name), ["demo__a", "demo__b", "demo__c"]);
    const a = r.scenarios[0]!;
    assert.equal(a.source, `file:${join(dir, "a.yml")}`);
    assert.equal(a.max_duration_s, 900); // schema defaults applied
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a scenarios list loads each entry, and a scenario's own source is kept", async () => {
  const r = await loadScenarioText(
    "list.yaml",
    `scenarios:
  - name: demo__x
    domain: eva_airline
    source: "eva:9.9.9"
    success_signals: [clean_exit]
  - name: demo__y
    domain: eva_airline
    success_signals: [clean_exit]
`,
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.scenarios.map((s) => [s.name, s.source]), [
    ["demo__x", "eva:9.9.9"],
    ["demo__y", "file:list.yaml"],
  ]);
});

Deno.test("an unknown field names its line and the closest known field", async () => {
  const r = await loadScenarioText(
    "typo.yaml",
    `name: demo__typo
domain: eva_airline
success_signals: [clean_exit]
agent:
  tools: [get_reservation]
  promt: hello
max_duraton_s: 60
`,
  );
  assert.deepEqual(r.scenarios, []);
  assert.deepEqual(r.problems, [
    {
      file: "typo.yaml",
      line: 6,
      where: "demo__typo",
      field: "agent.promt",
      message: 'unknown field "promt"',
      hint: 'did you mean "prompt"?',
    },
    {
      file: "typo.yaml",
      line: 7,
      where: "demo__typo",
      field: "max_duraton_s",
      message: 'unknown field "max_duraton_s"',
      hint: 'did you mean "max_duration_s"?',
    },
  ]);
});

Deno.test("a bad value and a missing field are located in the list entry they belong to", async () => {
  const r = await loadScenarioText(
    "bad.yaml",
    `scenarios:
  - name: demo__ok
    domain: eva_airline
    success_signals: [clean_exit]
  - name: demo__bad
    domain: eva_airline
    max_duration_s: long
    expect:
      reference_actions:
        - name: get_reservation
          arguments: 7
`,
  );
  assert.deepEqual(r.scenarios.map((s) => s.name), ["demo__ok"]);
  const byField = Object.fromEntries(r.problems.map((p) => [p.field, p]));
  assert.equal(byField["max_duration_s"]!.line, 7);
  assert.equal(byField["max_duration_s"]!.where, "demo__bad");
  assert.equal(byField["expect.reference_actions[0].arguments"]!.line, 11);
  assert.equal(byField["success_signals"]!.message, "missing field");
  assert.equal(byField["success_signals"]!.line, 5);
});

Deno.test("a YAML or JSON syntax error is a located problem", async () => {
  const yaml = await loadScenarioText("broken.yaml", "name: a\n  domain: [x\n");
  assert.equal(yaml.scenarios.length, 0);
  assert.equal(yaml.problems[0]!.file, "broken.yaml");
  assert.equal(typeof yaml.problems[0]!.line, "number");
  assert.match(yaml.problems[0]!.message, /^invalid YAML/);
  const json = await loadScenarioText("broken.json", '{\n  "name": "a",\n  "domain": \n}\n');
  assert.deepEqual(json.problems, [
    { file: "broken.json", line: 4, message: 'invalid JSON: unexpected "}"' },
  ]);
});

Deno.test("a flow group goes to the flow loader", async () => {
  const r = await loadScenarioText(
    "clinic.yaml",
    `name: Clinic
nodes:
  front:
    say: "Hello, you reached the clinic."
    timeout: { after: 5s, to: livekit/hangup }
scenarios:
  - label: hears-greeting
    start: front
    expect: { end: livekit/hangup }
`,
  );
  assert.deepEqual(r.problems, []);
  assert.equal(r.scenarios.length, 1);
  assert.equal(r.scenarios[0]!.domain, "flow");
  const bad = await loadScenarioText("bad_flow.yaml", "nodes:\n  a:\n    then: nowhere\n");
  assert.equal(bad.scenarios.length, 0);
  assert.ok(bad.problems.length > 0);
  assert.equal(bad.problems[0]!.file, "bad_flow.yaml");
});

Deno.test("duplicate names, missing paths and empty folders are reported", async () => {
  const dir = await folder({ "one.yaml": MINIMAL, "two.yaml": MINIMAL });
  const empty = await Deno.makeTempDir({ prefix: "callbench-empty-" });
  try {
    const r = await loadScenarioFiles([dir, join(dir, "missing.yaml"), empty]);
    assert.deepEqual(r.scenarios.map((s) => s.name), ["demo__one"]);
    assert.deepEqual(r.problems.map((p) => [p.file, p.message]), [
      [join(dir, "missing.yaml"), "no such file or folder"],
      [join(dir, "two.yaml"), `duplicate scenario name (first in ${join(dir, "one.yaml")})`],
    ]);
    assert.deepEqual(r.warnings.map((w) => w.file), [empty]);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("a document that is not a mapping is refused", async () => {
  const r = await loadScenarioText("list.yaml", "- a\n- b\n");
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0]!.message, /^expected a scenario/);
});

Deno.test("a flow file with a duplicate node gets the flow loader's node-named error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/dup.yaml`;
    await Deno.writeTextFile(
      file,
      [
        "nodes:",
        "  menu:",
        '    say: "Press 1."',
        "    routes:",
        '      - { match: "1", to: menu }',
        "  menu:",
        '    say: "Again."',
        "    then: livekit/hangup",
        "scenarios:",
        "  - label: a",
        "    start: menu",
      ].join("\n"),
    );
    const { problems, scenarios } = await loadScenarioFiles([file]);
    assert.equal(scenarios.length, 0);
    assert.deepEqual(problems.map((p) => [p.line, p.where, p.message]), [
      [6, 'node "menu"', 'duplicate node name "menu" (first at line 2)'],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unquoted * is a located problem, in a flow file or a scenario file, never a crash", () => {
  const flow = loadScenarioText(
    "star.yaml",
    'nodes:\n  a:\n    say: "Press."\n    routes:\n      - match: *\n        to: a\nscenarios:\n  - label: x\n    start: a\n',
  );
  assert.equal(flow.problems[0]?.line, 5);
  assert.match(flow.problems[0]!.message, /unquoted \* in "match"/);
  const plain = loadScenarioText("alias.yaml", "name: *x\ndomain: y\n");
  assert.deepEqual(plain.problems.map((p) => [p.line, p.message.slice(0, 34)]), [
    [1, "invalid YAML: Unresolved alias (th"],
  ]);
});

Deno.test("a scenario file over 8 MB is refused before it is parsed, naming the file", async () => {
  const dir = await folder({
    "huge.yaml": MINIMAL + `description: "${"x".repeat(8 * 1024 * 1024)}"\n`,
  });
  try {
    const t0 = performance.now();
    const r = await loadScenarioFiles([dir]);
    assert.deepEqual(r.scenarios, []);
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.file, join(dir, "huge.yaml"));
    assert.match(r.problems[0]!.message, /scenario file too large: 8\.0 MB, the limit is 8 MB/);
    // Refused on its size, not after a parse.
    assert.ok(performance.now() - t0 < 1000);
    assert.match(
      loadScenarioText("t.yaml", "x".repeat(8 * 1024 * 1024 + 1)).problems[0]!.message,
      /too large/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a scenario's user.voice loads, and a bad one is located by file, line and field", async () => {
  const good = await loadScenarioText(
    "voice.yaml",
    `name: demo__voice
domain: eva_airline
success_signals: [clean_exit]
user:
  voice: { name: awb, rate: 1.1, pitch: 120 }
  language: en-GB
`,
  );
  assert.deepEqual(good.problems, []);
  assert.deepEqual(good.scenarios[0]!.user.voice, { name: "awb", rate: 1.1, pitch: 120 });
  const bad = await loadScenarioText(
    "voice.yaml",
    `name: demo__voice
domain: eva_airline
success_signals: [clean_exit]
user:
  voice:
    name: awb
    rate: 3
    pich: 120
`,
  );
  assert.deepEqual(bad.scenarios, []);
  assert.deepEqual(
    bad.problems.map((p) => [p.file, p.line, p.field, p.message, p.hint]),
    [
      [
        "voice.yaml",
        7,
        "user.voice.rate",
        "expected a speaking rate from 0.5 to 2 (1 is the voice's own)",
        undefined,
      ],
      ["voice.yaml", 8, "user.voice.pich", 'unknown field "pich"', 'did you mean "pitch"?'],
    ],
  );
});
