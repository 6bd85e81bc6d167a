import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";

const FLOWS = new URL("../../scenarios/flows/", import.meta.url).pathname;

async function validate(files: Record<string, string>) {
  const dir = await Deno.makeTempDir();
  try {
    const paths = [];
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(dir, name), text);
      paths.push(join(dir, name));
    }
    const io = memoryIo();
    const code = await run(["validate", ...paths], io);
    const lines = io.stderr.flatMap((l) => l.split("\n")).map((l) => l.replaceAll(dir + "/", ""));
    return { code, stdout: io.stdout, stderr: lines };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("validate accepts the bundled flow files and prints nothing on stdout", async () => {
  const io = memoryIo();
  const code = await run(["validate", FLOWS], io);
  assert.equal(code, 0, io.stderr.join("\n"));
  assert.deepEqual(io.stdout, []);
  assert.deepEqual(io.stderr, ["7 scenarios valid"]);
});

const FLOW = `nodes:
  menu:
    say: Press 1.
    routes:
      - { match: "1", to: dsk }
    timeout: { after: 30s, to: menu }
  desk:
    say: Desk.
  spare:
    say: Nobody comes here.
    then: livekit/hangup
scenarios:
  - label: one
    start: menu
`;

Deno.test("validate exits 2 with every error located, one per line, and warnings too", async () => {
  const r = await validate({ "group.yaml": FLOW });
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr, [
    'warning: group.yaml:7: node "desk": no scenario\'s start reaches this node',
    'warning: group.yaml:9: node "spare": no scenario\'s start reaches this node',
    'warning: group.yaml:13: scenario "one": nothing scores this scenario: give it "expect" or "agent_expectations"',
    'group.yaml:5: node "menu": field "routes[0].to": unknown node "dsk" (did you mean "desk"?)',
    'group.yaml:6: node "menu": field "timeout.after": "after" must be at most 20 s, got "30s"',
    'group.yaml:7: node "desk": field "say": a "say"-only node needs a way out: "then", "routes" or "timeout"',
  ]);
});

Deno.test("validate explains YAML traps in flow files", async () => {
  const trap = FLOW.replace('{ match: "1", to: dsk }', "{ match: #, to: desk }");
  const dup = FLOW.replace(
    "    say: Desk.\n",
    "    say: Desk.\n    say: Again.\n    then: livekit/hangup\n",
  );
  const r = await validate({ "trap.yaml": trap, "dup.yaml": dup });
  assert.equal(r.code, 2);
  assert.ok(
    r.stderr.some((l) => l.startsWith('trap.yaml:5: field "match": unquoted # in "match"')),
    r.stderr.join("\n"),
  );
  assert.ok(
    r.stderr.includes(
      'dup.yaml:9: node "desk": field "say": duplicate key "say" (first at line 8)',
    ),
    r.stderr.join("\n"),
  );
});

Deno.test("validate needs a file", async () => {
  const io = memoryIo();
  assert.equal(await run(["validate"], io), 2);
  assert.match(io.stderr[0]!, /at least one file/);
});
