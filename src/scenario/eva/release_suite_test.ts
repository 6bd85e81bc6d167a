import assert from "node:assert/strict";
import { join } from "node:path";
import { DataRoot } from "../data_root.ts";
import { compareReleaseIds, releaseSuite } from "./release_suite.ts";
import { dbHash } from "../../canonical/hash.ts";
import { openEnvironment } from "../open_environment.ts";

const AGENT = `role: You answer the IT service desk.
instructions: Authenticate first.
tools:
  - id: verify_employee_auth
  - id: create_incident_ticket
`;

function record(id: string) {
  return {
    id,
    current_date_time: "2026-03-10 09:15 EST",
    user_goal: {
      high_level_user_goal: "Report an outage at <LOC:Headquarters>. Then hang up.",
      decision_tree: { must_have_criteria: ["A ticket."] },
      information_required: { employee_id: "EMP000001", phone_last_four: "1234" },
    },
    user_config: { name: "<FIRST_NAME> <LAST_NAME>", user_persona: "Brief." },
    starting_utterances: { en: "Hi, the VPN is down.", fr: "Bonjour, le VPN est en panne." },
    culture_overrides: {
      en: { first_name: "Marcus", last_name: "Chen" },
      fr: { first_name: "Rémi", last_name: "Rousseau" },
    },
    romanized_culture_overrides: { fr: { first_name: "Remi", last_name: "Rousseau" } },
    ground_truth: {
      expected_scenario_db: {
        _current_date: "2026-03-10",
        employees: { EMP000001: { first_name: "<FIRST_NAME_ROMANIZED>", phone_last_four: "1234" } },
      },
      expected_trace: {
        trace: [
          { event_type: "user_utterance", utterance: "Hi" },
          {
            event_type: "tool_call",
            tool_name: "verify_employee_auth",
            params: { employee_id: "EMP000001", phone_last_four: "1234" },
          },
          {
            event_type: "tool_response",
            tool_name: "verify_employee_auth",
            response: { status: "success" },
          },
        ],
      },
    },
  };
}

async function dataRoot(): Promise<string> {
  const dir = await Deno.makeTempDir();
  const folder = join(dir, "eva_itsm");
  await Deno.mkdir(join(folder, "aliases"), { recursive: true });
  await Deno.writeTextFile(join(folder, "itsm_agent.yaml"), AGENT);
  await Deno.writeTextFile(
    join(folder, "itsm_dataset.json"),
    JSON.stringify([record("10"), record("2"), record("3")]),
  );
  const world = {
    _current_date: "2026-03-10",
    employees: { EMP000001: { first_name: "<FIRST_NAME_ROMANIZED>", phone_last_four: "1234" } },
    facilities: { buildings: { BLD1: { name: "Headquarters" } } },
  };
  await Deno.writeTextFile(join(folder, "10.json"), JSON.stringify(world));
  await Deno.writeTextFile(join(folder, "2.json"), JSON.stringify(world));
  await Deno.writeTextFile(
    join(folder, "aliases", "headquarters.json"),
    JSON.stringify({ name: "Headquarters", base: ["hq"], translations: { fr: ["siège"] } }),
  );
  return dir;
}

const suite = releaseSuite({
  id: "eva_itsm",
  folder: "eva_itsm",
  dataset: "itsm_dataset.json",
  agent: "itsm_agent.yaml",
});

Deno.test("a release suite loads each record in the language asked, in id order; a missing world is a located problem", async () => {
  const dir = await dataRoot();
  try {
    const root = new DataRoot(dir);
    const en = await suite.load(root);
    assert.deepEqual(en.scenarios.map((s) => s.name), ["eva_itsm__2", "eva_itsm__10"]);
    assert.equal(en.problems.length, 1);
    assert.match(en.problems[0]!.file!, /3\.json$/);
    assert.equal(en.problems[0]!.message, "world file not found");
    const [s] = en.scenarios;
    assert.equal(s!.user.opening, "Hi, the VPN is down.");
    assert.equal(s!.user.language, "en");
    assert.equal(s!.user.known_info.name, "Marcus Chen");
    assert.match(s!.user.prompt, /outage at Headquarters\./);
    assert.deepEqual(s!.agent.tools, [
      "verify_employee_auth",
      "create_incident_ticket",
      "end_conversation",
    ]);
    const world =
      (s!.world.db as { inline: Record<string, Record<string, Record<string, unknown>>> }).inline;
    assert.equal(world.employees!.EMP000001!.first_name, "marcus");
    assert.deepEqual(world.facilities!.buildings!.BLD1, {
      name: "Headquarters",
      name_aliases: ["hq"],
    });

    const fr = await suite.load(root, { language: "fr" });
    const f = fr.scenarios[0]!;
    assert.equal(f.user.opening, "Bonjour, le VPN est en panne.");
    assert.equal(f.user.known_info.name, "Rémi Rousseau");
    assert.match(f.user.prompt, /outage at siège\./);
    assert.match(f.agent.prompt, /Speak French with the caller/);
    assert.equal(
      f.expect.db_sha256,
      dbHash({
        _current_date: "2026-03-10",
        employees: { EMP000001: { first_name: "remi", phone_last_four: "1234" } },
      }),
    );
    // The gold trace's call replays on the resolved world.
    const { env } = await openEnvironment(root, f, "gold");
    for (const a of f.expect.reference_actions!) {
      assert.ok(env.call(a.side, a.name, a.arguments).ok);
    }

    const ko = await suite.load(root, { language: "ko" });
    assert.equal(ko.scenarios.length, 0);
    assert.ok(ko.problems.some((p) => /no starting utterance in language "ko"/.test(p.message)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("release ids sort by their numbers: 2 before 10, D1.2 before D10.1", () => {
  assert.deepEqual(["10", "2", "D10.1", "D1.2", "1.10", "1.2"].sort(compareReleaseIds), [
    "1.2",
    "1.10",
    "2",
    "10",
    "D1.2",
    "D10.1",
  ]);
});
