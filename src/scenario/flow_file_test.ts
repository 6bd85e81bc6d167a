import assert from "node:assert/strict";
import { formatProblem } from "../problem/problem.ts";
import { FLOW_MAX_DURATION_S, isFlowDocument, loadFlowFile } from "./flow_file.ts";

const GROUP = `name: Parcel Depot
nodes:
  front:
    say: "Parcel depot. For deliveries, press 1. For returns, press 2."
    speaker: machine
    routes:
      - { match: "1", to: deliveries }
      - { match: 012, to: front }
      - { match: "[0-9*#]", to: front }
    timeout: { after: 6s, to: front }
  deliveries:
    say: Deliveries desk.
    instructions: You handle deliveries.
    timeout: { after: 1500ms, to: livekit/hangup }
scenarios:
  - label: reach-deliveries
    start: front
    userdata: { goal: deliveries, pin: 0042, tracking: 12345678901234567890, count: 3 }
    tags: [ivr]
    agent_expectations: Presses 1 and asks about a parcel.
    expect: { path: [front, deliveries], keys: 1, end: livekit/hangup }
  - label: persona
    instructions: You are a courier who missed a pickup.
`;

Deno.test("loadFlowFile turns a group into flow scenarios", () => {
  const r = loadFlowFile("flows/parcel.yaml", GROUP);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.warnings.map(formatProblem), [
    'flows/parcel.yaml:22: scenario "persona": nothing scores this scenario: give it "expect" or "agent_expectations"',
  ]);
  assert.deepEqual(r.scenarios.map((s) => s.name), [
    "flow__parcel-depot__reach-deliveries",
    "flow__parcel-depot__persona",
  ]);
  const [a, b] = r.scenarios;
  assert.equal(a!.domain, "flow");
  assert.equal(a!.suite, undefined);
  assert.equal(a!.source, "file:flows/parcel.yaml");
  assert.equal(a!.max_duration_s, FLOW_MAX_DURATION_S);
  assert.deepEqual(a!.tags, ["ivr"]);
  assert.deepEqual(a!.user.start, "front");
  assert.deepEqual(a!.expect.flow, {
    path: ["front", "deliveries"],
    keys: "1",
    end: "livekit/hangup",
  });
  assert.equal(a!.expect.agent_expectations, "Presses 1 and asks about a parcel.");
  assert.deepEqual(a!.success_signals, ["flow_expectation", "nl_assertion"]);
  assert.deepEqual(Object.keys(a!.flow!), ["front", "deliveries"]);
  assert.deepEqual((a!.flow as Record<string, unknown>).deliveries, {
    say: "Deliveries desk.",
    instructions: "You handle deliveries.",
    speaker: "VOICE",
    timeout: { after_ms: 1500, to: "livekit/hangup" },
  });
  assert.equal(b!.user.instructions, "You are a courier who missed a pickup.");
  assert.equal(b!.flow, undefined);
  // A persona with nothing to score still runs; its verdict is N/A.
  assert.deepEqual(b!.success_signals, ["flow_expectation"]);
});

Deno.test("loadFlowFile keeps the source text of numbers written where text or codes belong", () => {
  const [a] = loadFlowFile("parcel.yaml", GROUP).scenarios;
  const front = (a!.flow as Record<string, { routes: { match: string }[]; speaker: string }>)
    .front!;
  assert.equal(front.routes[1]!.match, "012");
  assert.equal(front.speaker, "MACHINE");
  assert.deepEqual(a!.agent.userdata, {
    goal: "deliveries",
    pin: "0042",
    tracking: "12345678901234567890",
    count: 3,
  });
});

Deno.test("loadFlowFile names scenarios after the file when the group has no name", () => {
  const text = GROUP.replace("name: Parcel Depot\n", "");
  assert.equal(
    loadFlowFile("x/Parcel Depot.yaml", text).scenarios[0]!.name,
    "flow__parcel-depot__reach-deliveries",
  );
  assert.equal(
    loadFlowFile("x/depot/scenarios.yaml", text).scenarios[0]!.name,
    "flow__depot__reach-deliveries",
  );
});

Deno.test("loadFlowFile explains an unquoted # in a match (a YAML comment)", () => {
  const text = GROUP.replace(`{ match: "1", to: deliveries }`, "match: #\n        to: deliveries");
  const r = loadFlowFile("parcel.yaml", text);
  assert.deepEqual(r.scenarios, []);
  assert.deepEqual(r.problems.map(formatProblem), [
    'parcel.yaml:7: node "front": field "routes[0].match": empty "match" (an unquoted # starts a YAML comment and an unquoted * an alias: quote them as "#" and "*")',
  ]);
});

Deno.test("loadFlowFile explains an unquoted # or * inside a flow mapping", () => {
  for (const c of ["#", "*"]) {
    const text = GROUP.replace(`{ match: "1", to: deliveries }`, `{ match: ${c}, to: deliveries }`);
    const r = loadFlowFile("parcel.yaml", text);
    assert.equal(r.problems.length, 1, JSON.stringify(r.problems));
    assert.equal(r.problems[0]!.line, 7);
    assert.match(
      formatProblem(r.problems[0]!),
      new RegExp(`unquoted \\${c} in "match".*quote them as "#" and "\\*"`),
    );
  }
});

Deno.test("loadFlowFile reports duplicate keys and node names with both lines", () => {
  const text = GROUP.replace(
    "  deliveries:\n",
    "  front:\n    say: again\n    then: front\n  deliveries:\n",
  )
    .replace("    speaker: machine\n", "    speaker: machine\n    speaker: voice\n");
  const msgs = loadFlowFile("parcel.yaml", text).problems.map(formatProblem);
  assert.ok(
    msgs.includes(
      'parcel.yaml:6: node "front": field "speaker": duplicate key "speaker" (first at line 5)',
    ),
    msgs.join("\n"),
  );
  assert.ok(
    msgs.includes('parcel.yaml:12: node "front": duplicate node name "front" (first at line 3)'),
    msgs.join("\n"),
  );
});

Deno.test("loadFlowFile reports YAML syntax errors with their line", () => {
  const r = loadFlowFile("bad.yaml", "nodes:\n  a: [1, 2\nscenarios: []\n");
  assert.ok(r.problems.length > 0);
  assert.ok(r.problems.every((p) => p.file === "bad.yaml" && typeof p.line === "number"));
  assert.match(r.problems[0]!.message, /^invalid YAML: /);
});

Deno.test("loadFlowFile resolves anchors and aliases", () => {
  const text = `nodes:
  bye: &bye { say: Bye., then: livekit/hangup }
  again: *bye
scenarios:
  - { label: a, start: bye, expect: { end: livekit/hangup } }
  - { label: b, start: again, expect: { end: livekit/hangup } }
`;
  const r = loadFlowFile("alias.yaml", text);
  assert.deepEqual(r.problems, []);
  assert.equal((r.scenarios[1]!.flow as Record<string, { say: string }>).again!.say, "Bye.");
});

Deno.test("isFlowDocument tells a flow group from a plain scenario file", () => {
  assert.equal(isFlowDocument({ nodes: {}, scenarios: [] }), true);
  assert.equal(isFlowDocument({ scenarios: [{ label: "p", instructions: "x" }] }), true);
  assert.equal(isFlowDocument({ scenarios: [{ name: "s", domain: "d" }] }), false);
  assert.equal(isFlowDocument({ name: "s", domain: "d" }), false);
  assert.equal(isFlowDocument([]), false);
});

const LANGUAGES = `name: Clinic
nodes:
  front:
    say:
      en: "You have reached the clinic. Press 1 for the desk."
      es: "Ha llamado a la clínica. Pulse 1 para la recepción."
    speaker: machine
    routes: [{ match: "1", to: desk }]
  desk:
    say: { en: "Front desk.", es: "Recepción." }
    then: livekit/hangup
scenarios:
  - { label: english, start: front, expect: { end: livekit/hangup } }
  - { label: mexico, start: front, language: es-MX, voice: { pitch: 210 }, expect: { end: livekit/hangup } }
  - { label: british, start: front, language: en-GB, expect: { end: livekit/hangup } }
`;

Deno.test("a flow's per-language say is played in the scenario's language (es-MX takes es; none takes en)", async () => {
  const r = loadFlowFile("flows/clinic.yaml", LANGUAGES);
  assert.deepEqual(r.problems, []);
  const [en, es, gb] = r.scenarios;
  const front = (s: typeof en) => (s!.flow as Record<string, { say?: string }>).front!.say;
  assert.equal(front(en), "You have reached the clinic. Press 1 for the desk.");
  assert.equal(front(es), "Ha llamado a la clínica. Pulse 1 para la recepción.");
  assert.equal(front(gb), front(en));
  assert.equal(es!.user.language, "es-MX");
  assert.equal(en!.user.language, undefined);
  assert.deepEqual(es!.user.voice, { pitch: 210 });
  // What a call in es-MX plays to the agent, end to end.
  const { simulateFlowCall, TimedAgent } = await import("../flow/_sim_call.ts");
  const { agentSaw } = await simulateFlowCall(es!, new TimedAgent([]));
  const heard = agentSaw.flatMap((e) => e.type === "speech" ? [e.text] : []);
  assert.deepEqual(heard.slice(0, 1), ["Ha llamado a la clínica. Pulse 1 para la recepción."]);
  assert.ok(!heard.some((t) => /clinic\b|desk/i.test(t)), heard.join(" | "));
});

Deno.test("a flow scenario whose language a node's say lacks is refused, naming the node, the line and the languages", () => {
  const r = loadFlowFile(
    "flows/clinic.yaml",
    LANGUAGES.replace("language: es-MX", "language: fr-CA"),
  );
  assert.deepEqual(r.scenarios, []);
  assert.deepEqual(r.problems.map(formatProblem), [
    'flows/clinic.yaml:4: scenario "mexico": field "language": node "front" has no "say" in fr-CA (it has en, es): add one, or set the scenario\'s language to one of those',
    'flows/clinic.yaml:10: scenario "mexico": field "language": node "desk" has no "say" in fr-CA (it has en, es): add one, or set the scenario\'s language to one of those',
  ]);
  const bad = loadFlowFile("flows/x.yaml", LANGUAGES.replace("es-MX", "spanish!"));
  assert.equal(bad.problems.length, 1);
  assert.match(
    formatProblem(bad.problems[0]!),
    /:14: .*expected a language tag such as en, es or es-MX/,
  );
});
