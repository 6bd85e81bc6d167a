/**
 * Each command's help and its parser come from one flag table: every flag `main`
 * accepts has a row in its help, and every flag row in its help is one `main` accepts.
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, parseFlags } from "../cli/args.ts";

/** Flags named at the start of a help row (`  --name VALUE  text`, `  -x, --name`). */
function helpRows(help: string): string[] {
  return [...help.matchAll(/^ {2,}(?:-[A-Za-z], )?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]!);
}

/** The message `main` fails with on `args` (all of them end in an unknown flag). */
async function failure(
  main: (args: string[], io: ReturnType<typeof memoryIo>) => Promise<number>,
  args: string[],
) {
  try {
    await main(args, memoryIo());
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  return "no error";
}

for (const [name, entry] of Object.entries(COMMANDS)) {
  Deno.test(`help: ${name}'s help rows are exactly the flags its main accepts`, async () => {
    const { command } = await entry.load();
    const table = Object.keys(command.flags).sort();
    assert.ok(table.length > 0, `${name} has no flags`);
    assert.deepEqual([...new Set(helpRows(command.help))].sort(), table);
    // main parses with that table: each flag is accepted, so the parser stops at the
    // unknown flag after it (before the command does anything).
    assert.match(await failure(command.main, ["--zz-not-a-flag"]), /unknown flag --zz-not-a-flag/);
    for (const [flag, def] of Object.entries(command.flags)) {
      const args = def.type === "string" ? [`--${flag}`, "1"] : [`--${flag}`];
      assert.match(
        await failure(command.main, [...args, "--zz-not-a-flag"]),
        /unknown flag --zz-not-a-flag/,
        `${name} --${flag}`,
      );
    }
  });
}

Deno.test("help: flag rows align, wrap continuation lines and show defaults", () => {
  const table = {
    out: { type: "string", value: "DIR", description: "where to write", default: "out/" },
    force: { type: "boolean", description: "overwrite\nedited files" },
    tag: { type: "string", multiple: true, short: "t", description: "a tag (repeatable)" },
  } as const;
  assert.equal(
    flagRows(table, { extra: [["FILE", "inputs"]] }),
    [
      "  --out DIR        where to write (default out/)",
      "  --force          overwrite",
      "                   edited files",
      "  -t, --tag VALUE  a tag (repeatable)",
      "  FILE             inputs",
    ].join("\n"),
  );
  const { values } = parseFlags(["-t", "a", "--tag", "b", "--force"], table);
  // A default is shown, not applied by the parser: `out` stays absent.
  assert.deepEqual({ ...values }, { tag: ["a", "b"], force: true });
});
