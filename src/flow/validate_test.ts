import assert from "node:assert/strict";
import { formatProblem } from "../problem/problem.ts";
import { loadFlowFile } from "../scenario/flow_file.ts";

/** A valid group; each test breaks one line of it. Line numbers are in the comments. */
const BASE = [
  "nodes:", //                                    1
  "  menu:", //                                   2
  "    say: Press 1 for help.", //                3
  "    routes:", //                               4
  '      - { match: "1", to: help }', //          5
  "    timeout: { after: 5s, to: menu }", //      6
  "  help:", //                                   7
  "    say: Help is on the way.", //              8
  "    then: livekit/hangup", //                  9
  "scenarios:", //                                10
  "  - label: asks-for-help", //                  11
  "    start: menu", //                           12
  "    expect: { end: livekit/hangup }", //       13
];

function edit(changes: Record<number, string | string[]>): string {
  return BASE.flatMap((l, i) => {
    const c = changes[i + 1];
    return c === undefined ? [l] : Array.isArray(c) ? c : [c];
  }).join("\n") + "\n";
}

function problems(text: string): string[] {
  const r = loadFlowFile("f.yaml", text);
  if (r.problems.length > 0) assert.deepEqual(r.scenarios, [], "a bad file loads no scenario");
  return r.problems.map(formatProblem);
}

Deno.test("validate: the base group is valid", () => {
  const r = loadFlowFile("f.yaml", edit({}));
  assert.deepEqual([r.problems, r.warnings], [[], []]);
  assert.equal(r.scenarios.length, 1);
});

Deno.test("validate: unknown start, to, then and timeout targets, with the closest name", () => {
  assert.deepEqual(problems(edit({ 12: "    start: mneu" })), [
    'f.yaml:12: scenario "asks-for-help": field "start": unknown node "mneu" (did you mean "menu"?)',
  ]);
  assert.deepEqual(problems(edit({ 5: '      - { match: "1", to: hepl }' })), [
    'f.yaml:5: node "menu": field "routes[0].to": unknown node "hepl" (did you mean "help"?)',
  ]);
  assert.deepEqual(problems(edit({ 9: "    then: livekit/hangpu" })), [
    'f.yaml:9: node "help": field "then": unknown node "livekit/hangpu" (did you mean "livekit/hangup"?)',
  ]);
  assert.deepEqual(
    problems(edit({ 6: "    timeout: { after: 5s, to: nowhere }" }))[0],
    'f.yaml:6: node "menu": field "timeout.to": unknown node "nowhere" (known: menu, help, livekit/hangup, livekit/unavailable, livekit/voicemail)',
  );
});

Deno.test("validate: a scenario sets start or instructions, not both and not neither", () => {
  assert.deepEqual(problems(edit({ 12: ["    start: menu", "    instructions: You are Kim."] })), [
    'f.yaml:13: scenario "asks-for-help": field "instructions": set "start" or "instructions", not both',
  ]);
  assert.deepEqual(problems(edit({ 12: [] })), [
    'f.yaml:11: scenario "asks-for-help": field "start": set "start" (a node) or "instructions" (a persona call)',
  ]);
});

Deno.test("validate: duplicate labels and node names are errors", () => {
  const text = edit({
    13: [
      "    expect: { end: livekit/hangup }",
      "  - label: asks-for-help",
      "    start: help",
      "    expect: { end: livekit/hangup }",
    ],
  });
  assert.deepEqual(problems(text), [
    'f.yaml:14: scenario "asks-for-help": field "label": duplicate label "asks-for-help" (first at line 11)',
  ]);
  assert.deepEqual(
    problems(edit({ 7: "  menu:" }))[0],
    'f.yaml:7: node "menu": duplicate node name "menu" (first at line 2)',
  );
});

Deno.test("validate: reserved and malformed names", () => {
  const reserved = edit({ 7: "  livekit/help:", 5: '      - { match: "1", to: livekit/help }' });
  assert.ok(
    problems(reserved).includes(
      'f.yaml:7: node "livekit/help": reserved name "livekit/help" (livekit/ names are the built-ins)',
    ),
  );
  const malformed = edit({ 7: "  Help Desk:", 5: '      - { match: "1", to: Help Desk }' });
  assert.deepEqual(problems(malformed), [
    'f.yaml:7: node "Help Desk": malformed name "Help Desk" (lowercase letters, digits, - and _, starting with a letter or digit)',
  ]);
  assert.deepEqual(problems(edit({ 11: "  - label: Asks Help" })), [
    'f.yaml:11: scenario "Asks Help": field "label": malformed label "Asks Help" (lowercase letters, digits, - and _, starting with a letter or digit)',
  ]);
});

Deno.test("validate: a node needs say or instructions", () => {
  assert.deepEqual(problems(edit({ 8: [] })), [
    'f.yaml:7: node "help": field "say": a node needs "say" or "instructions"',
  ]);
});

Deno.test("validate: a say-only node needs a way out", () => {
  assert.deepEqual(problems(edit({ 9: [] })), [
    'f.yaml:7: node "help": field "say": a "say"-only node needs a way out: "then", "routes" or "timeout"',
  ]);
  // instructions alone is a person: no way out is needed.
  assert.deepEqual(problems(edit({ 9: "    instructions: Talk." })), []);
});

Deno.test("validate: routes and then on one node", () => {
  assert.deepEqual(
    problems(edit({ 6: ["    timeout: { after: 5s, to: menu }", "    then: help"] })),
    [
      'f.yaml:7: node "menu": field "then": a node with "routes" cannot have "then" (its routes decide where it goes)',
    ],
  );
});

Deno.test("validate: empty, invalid and non-key matches", () => {
  assert.deepEqual(problems(edit({ 5: '      - { match: "", to: help }' })), [
    'f.yaml:5: node "menu": field "routes[0].match": empty "match" (an unquoted # starts a YAML comment and an unquoted * an alias: quote them as "#" and "*")',
  ]);
  assert.deepEqual(problems(edit({ 5: '      - { match: "[0-9", to: help }' })), [
    'f.yaml:5: node "menu": field "routes[0].match": match "[0-9" is not a valid regular expression: Invalid regular expression: /^(?:[0-9)$/: Unterminated character class',
  ]);
  assert.deepEqual(problems(edit({ 5: "      - { match: yes, to: help }" })), [
    'f.yaml:5: node "menu": field "routes[0].match": match "yes" matches "y", which is not a key (keys are 0-9, *, #, A-D)',
  ]);
  assert.deepEqual(problems(edit({ 4: "    routes: []", 5: [] })), [
    'f.yaml:4: node "menu": field "routes": "routes" is empty (give at least one route, or drop it)',
  ]);
});

Deno.test("validate: timeout needs after and to, with 0 < after <= 20 s", () => {
  const t = (v: string) => problems(edit({ 6: `    timeout: ${v}` }));
  assert.deepEqual(t("{ to: menu }"), [
    'f.yaml:6: node "menu": field "timeout.after": missing field "after"',
  ]);
  assert.deepEqual(t("{ after: 5s }"), [
    'f.yaml:6: node "menu": field "timeout.to": missing field "to"',
  ]);
  for (const ok of ["20s", "20", "20000ms", "0.5s", "1500ms", "19.999s"]) {
    assert.deepEqual(t(`{ after: ${ok}, to: menu }`), [], ok);
  }
  assert.deepEqual(t("{ after: 20.001s, to: menu }"), [
    'f.yaml:6: node "menu": field "timeout.after": "after" must be at most 20 s, got "20.001s"',
  ]);
  assert.deepEqual(t("{ after: 20001ms, to: menu }").length, 1);
  assert.deepEqual(t("{ after: 21, to: menu }").length, 1);
  assert.deepEqual(t("{ after: 0, to: menu }"), [
    'f.yaml:6: node "menu": field "timeout.after": "after" must be more than 0, got 0',
  ]);
  assert.deepEqual(t("{ after: -2, to: menu }").length, 1);
  assert.deepEqual(t("{ after: soon, to: menu }"), [
    'f.yaml:6: node "menu": field "timeout.after": "after" must look like 8s, 1500ms or a number of seconds, got "soon"',
  ]);
});

Deno.test("validate: speaker is MACHINE or VOICE in any case", () => {
  assert.deepEqual(
    problems(edit({ 3: ["    say: Press 1 for help.", "    speaker: Machine"] })),
    [],
  );
  assert.deepEqual(problems(edit({ 3: ["    say: Press 1 for help.", "    speaker: robot"] })), [
    'f.yaml:4: node "menu": field "speaker": unknown speaker "robot" (MACHINE or VOICE)',
  ]);
  assert.deepEqual(problems(edit({ 3: ["    say: Press 1 for help.", "    speaker: machin"] })), [
    'f.yaml:4: node "menu": field "speaker": unknown speaker "machin" (MACHINE or VOICE) (did you mean "MACHINE"?)',
  ]);
});

Deno.test("validate: a loop of announcements that never waits is an error", () => {
  const text = edit({
    9: ["    then: again"],
    10: ["  again:", "    say: Still here.", "    then: help", "scenarios:"],
  });
  assert.deepEqual(problems(text), [
    'f.yaml:9: node "help": field "then": announcements loop without ever waiting for the agent: help -> again -> help (give one of them "routes" or "timeout" instead of "then")',
  ]);
  // Through a screener (it waits for the agent) the loop is fine.
  const screened = edit({
    9: ["    then: again"],
    10: [
      "  again:",
      "    say: Who is it?",
      "    instructions: Screen.",
      "    then: help",
      "scenarios:",
    ],
  });
  assert.deepEqual(problems(screened), []);
});

Deno.test("validate: unknown fields get the closest known name", () => {
  assert.deepEqual(problems(edit({ 4: "    rotues:" })), [
    'f.yaml:4: node "menu": field "rotues": unknown field "rotues" (did you mean "routes"?)',
  ]);
  assert.deepEqual(problems(edit({ 5: '      - { match: "1", goto: help }' })), [
    'f.yaml:5: node "menu": field "routes[0].to": missing field "to"',
    'f.yaml:5: node "menu": field "routes[0].goto": unknown field "goto" (did you mean "to"?)',
  ]);
  assert.deepEqual(problems(edit({ 12: "    strat: menu" })), [
    'f.yaml:12: scenario "asks-for-help": field "strat": unknown field "strat" (did you mean "start"?)',
  ]);
  assert.deepEqual(problems(edit({ 13: "    expect: { end: livekit/hangup, messages: left }" })), [
    'f.yaml:13: scenario "asks-for-help": field "expect.messages": unknown field "messages" (did you mean "message"?)',
  ]);
  assert.deepEqual(
    problems(edit({ 1: "node:" }))[0],
    'f.yaml:1: field "node": unknown field "node" (did you mean "nodes"?)',
  );
});

Deno.test("validate: expect names nodes, built-ins at the end, and keys", () => {
  assert.deepEqual(
    problems(edit({ 13: "    expect: { path: [menu, livekit/hangup], end: hlep, keys: 1x }" })),
    [
      'f.yaml:13: scenario "asks-for-help": field "expect.path[1]": "livekit/hangup" is a built-in: built-ins end a call, so expect them with "end"',
      'f.yaml:13: scenario "asks-for-help": field "expect.end": unknown node "hlep" (did you mean "help"?)',
      'f.yaml:13: scenario "asks-for-help": field "expect.keys": "1x" is not a string of keys (0-9, *, #, A-D)',
    ],
  );
  assert.deepEqual(problems(edit({ 13: "    expect: { message: maybe }" })), [
    'f.yaml:13: scenario "asks-for-help": field "expect.message": must be one of "left", "none"',
  ]);
  assert.deepEqual(problems(edit({ 12: "    instructions: You are Kim." })), [
    'f.yaml:13: scenario "asks-for-help": field "expect.end": a persona call has no nodes: only "keys" can be expected',
  ]);
});

Deno.test("validate: warns about nodes no start reaches, and still loads", () => {
  const r = loadFlowFile(
    "f.yaml",
    edit({
      10: ["  lost:", "    say: Nobody hears this.", "    then: livekit/hangup", "scenarios:"],
    }),
  );
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.warnings.map(formatProblem), [
    'f.yaml:10: node "lost": no scenario\'s start reaches this node',
  ]);
  assert.equal(r.scenarios.length, 1);
});

Deno.test("validate: a file reports all its errors at once", () => {
  const text = edit({ 4: "    rotues:", 9: "    then: nowhere", 12: "    start: mneu" });
  assert.equal(problems(text).length, 3);
});

Deno.test("validate: an unknown field does not hide the node's other problems", () => {
  // `help` has a typo and is part of a loop of announcements: both are reported.
  const text = edit({
    9: ["    then: again", "    speakr: MACHINE"],
    10: ["  again:", "    say: Still here.", "    then: help", "scenarios:"],
  });
  assert.deepEqual(problems(text), [
    'f.yaml:9: node "help": field "then": announcements loop without ever waiting for the agent: help -> again -> help (give one of them "routes" or "timeout" instead of "then")',
    'f.yaml:10: node "help": field "speakr": unknown field "speakr" (did you mean "speaker"?)',
  ]);
  // A misspelt field is read as the hint says, so the loop it is part of shows too.
  const misspelt = edit({
    8: "    sayy: Help is on the way.",
    9: ["    then: again"],
    10: ["  again:", "    say: Still here.", "    then: help", "scenarios:"],
  });
  assert.deepEqual(problems(misspelt), [
    'f.yaml:8: node "help": field "sayy": unknown field "sayy" (did you mean "say"?)',
    'f.yaml:9: node "help": field "then": announcements loop without ever waiting for the agent: help -> again -> help (give one of them "routes" or "timeout" instead of "then")',
  ]);
  // ...and there is no "needs say" on top of the typo, while the node's other
  // checks still run.
  assert.deepEqual(problems(edit({ 8: "    sayy: Help is on the way.", 9: "    then: hlep" })), [
    'f.yaml:8: node "help": field "sayy": unknown field "sayy" (did you mean "say"?)',
    'f.yaml:9: node "help": field "then": unknown node "hlep" (did you mean "help"?)',
  ]);
  // A malformed field is reported, and the fields around it are still checked.
  assert.deepEqual(
    problems(
      edit({ 3: "    say: [Press 1 for help.]", 6: "    timeout: { after: 30s, to: menu }" }),
    ),
    [
      'f.yaml:3: node "menu": field "say": expected a text, or a text per language ({en: ..., es: ...}, each key a tag such as es-MX), got a list',
      'f.yaml:6: node "menu": field "timeout.after": "after" must be at most 20 s, got "30s"',
    ],
  );
});

Deno.test("validate: every problem of an expect is reported, unknown fields with a hint", () => {
  assert.deepEqual(
    problems(edit({
      13: '    expect: { msg: left, path: [lobby, livekit/hangup], end: nowhere, keys: "12x" }',
    })),
    [
      'f.yaml:13: scenario "asks-for-help": field "expect.msg": unknown field "msg" (did you mean "message"?)',
      'f.yaml:13: scenario "asks-for-help": field "expect.path[0]": unknown node "lobby" (known: menu, help, livekit/hangup, livekit/unavailable, livekit/voicemail)',
      'f.yaml:13: scenario "asks-for-help": field "expect.path[1]": "livekit/hangup" is a built-in: built-ins end a call, so expect them with "end"',
      'f.yaml:13: scenario "asks-for-help": field "expect.end": unknown node "nowhere" (known: menu, help, livekit/hangup, livekit/unavailable, livekit/voicemail)',
      'f.yaml:13: scenario "asks-for-help": field "expect.keys": "12x" is not a string of keys (0-9, *, #, A-D)',
    ],
  );
  // A bad value in expect leaves its other fields checked, and the scenario's start.
  assert.deepEqual(
    problems(edit({ 12: "    start: mneu", 13: "    expect: { message: maybe, end: hlep }" })),
    [
      'f.yaml:12: scenario "asks-for-help": field "start": unknown node "mneu" (did you mean "menu"?)',
      'f.yaml:13: scenario "asks-for-help": field "expect.message": must be one of "left", "none"',
      'f.yaml:13: scenario "asks-for-help": field "expect.end": unknown node "hlep" (did you mean "help"?)',
    ],
  );
  // Without a label the scenario's other fields are still checked.
  assert.deepEqual(problems(edit({ 11: "  - start: mneu", 12: [] })), [
    'f.yaml:11: scenarios[0]: field "label": missing field "label"',
    'f.yaml:11: scenarios[0]: field "start": unknown node "mneu" (did you mean "menu"?)',
  ]);
});

Deno.test("validate: a node left empty is reported as empty, not as a mapping", () => {
  assert.deepEqual(problems(edit({ 8: [], 9: [] })), [
    'f.yaml:7: node "help": expected a mapping, got nothing',
  ]);
});
