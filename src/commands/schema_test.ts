import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { memoryIo } from "../cli/io.ts";
import {
  command,
  RECORD_SCHEMA_FILES,
  SCHEMA_FILES,
  schemaText,
  TYPES_FILE,
  typesText,
  WIRE_INDEX_FILE,
  wireIndexText,
} from "./schema.ts";

Deno.test("schema writes one JSON Schema per record type and lists them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const io = memoryIo();
    equal(await command.main(["--out", `${dir}/out`], io), 0);
    assertEquals(
      io.stdout.map((l) => JSON.parse(l).file),
      [...SCHEMA_FILES.map((f) => f.file), WIRE_INDEX_FILE, TYPES_FILE].map((f) =>
        `${dir}/out/${f}`
      ),
    );
    const verdict = JSON.parse(await Deno.readTextFile(`${dir}/out/verdict.schema.json`));
    equal(verdict.$schema, "https://json-schema.org/draft/2020-12/schema");
    ok(verdict.required.includes("is_successful"));
    ok(Object.keys(verdict.properties.signals.properties).includes("flow_expectation"));
    const types = await Deno.readTextFile(`${dir}/out/${TYPES_FILE}`);
    ok(types.includes("export type TrialRecord = {"), "types.ts declares the trial record");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the scenario schema describes files as written: defaulted fields are optional", () => {
  const scenario = JSON.parse(schemaText(RECORD_SCHEMA_FILES[0]));
  ok(scenario.required.includes("name"));
  ok(!scenario.required.includes("today"));
});

Deno.test("the committed schemas are the generated ones", async () => {
  for (const entry of SCHEMA_FILES) {
    const committed = await Deno.readTextFile(
      new URL(`../../schemas/${entry.file}`, import.meta.url),
    );
    equal(committed, schemaText(entry), `schemas/${entry.file} is stale: run deno task schema`);
  }
  const index = await Deno.readTextFile(
    new URL(`../../schemas/${WIRE_INDEX_FILE}`, import.meta.url),
  );
  equal(index, wireIndexText(), `schemas/${WIRE_INDEX_FILE} is stale: run deno task schema`);
  const types = await Deno.readTextFile(new URL(`../../schemas/${TYPES_FILE}`, import.meta.url));
  equal(types, typesText(), `schemas/${TYPES_FILE} is stale: run deno task schema`);
  // No file is left over from a message type that is gone.
  const wanted = new Set(SCHEMA_FILES.map((f) => f.file));
  for await (const e of Deno.readDir(new URL("../../schemas/wire/", import.meta.url))) {
    if (e.name === "index.json") continue;
    ok(wanted.has(`wire/${e.name}`), `schemas/wire/${e.name} is no longer generated`);
  }
});

Deno.test("a wire schema spells the envelope and the handler's arguments", () => {
  const entry = SCHEMA_FILES.find((f) =>
    f.file === "wire/client.client-message.update_system_prompt.schema.json"
  );
  ok(entry, "no update_system_prompt schema");
  const json = JSON.parse(schemaText(entry));
  equal(json.properties.label.const, "rtvi-ai");
  equal(json.properties.type.const, "client-message");
  const d = json.properties.data.properties.d;
  equal(d.properties.tools.type, "string");
  ok(d.required.includes("prompt"));
  ok(!d.required.includes("tools"), "tools has a default, so a sender may leave it out");
});

Deno.test("flow files get a JSON Schema of their own", () => {
  const entry = SCHEMA_FILES.find((f) => f.file === "flow.schema.json");
  ok(entry, "no flow.schema.json");
  const flow = JSON.parse(schemaText(entry));
  assertEquals(flow.required, ["scenarios"]);
  ok(Object.keys(flow.properties).includes("nodes"));
  const node = flow.properties.nodes.additionalProperties;
  ok(Object.keys(node.properties).includes("routes"));
  equal(node.additionalProperties, false);
  ok(flow.properties.scenarios.items.required.includes("label"));
});
