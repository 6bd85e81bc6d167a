import { equal } from "node:assert/strict";
import { memoryIo } from "./io.ts";
import { command as evalCommand } from "../commands/eval.ts";
import { command as list } from "../commands/list.ts";
import { command as scaffold } from "../commands/scaffold.ts";

const NOTICE =
  "using the bundled fixtures: 3 tau2_telecom scenarios; --data-root DIR or EVAL_DATA_ROOT for the benchmark";

Deno.test("eval, list and scaffold say once on stderr that the bundled fixtures are in use, without a data root", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const runs: [string, (io: ReturnType<typeof memoryIo>) => Promise<number>][] = [
      ["list", (io) => list.main(["--domain", "tau2_telecom"], io)],
      [
        "eval",
        (io) =>
          evalCommand.main(
            ["--domain", "tau2_telecom", "--agent", "noop", "--workers", "0"],
            io,
          ),
      ],
      ["scaffold", (io) => scaffold.main(["--domain", "tau2_telecom", "--out", dir], io)],
    ];
    for (const [name, run] of runs) {
      const io = memoryIo();
      equal(await run(io), 0, `${name}: ${io.stderr.join("\n")}`);
      equal(io.stderr.filter((l) => l.startsWith("using the bundled")).length, 1, name);
      equal(io.stderr.find((l) => l.startsWith("using the bundled")), NOTICE, name);
      // Named (here the fixtures themselves, by path): nothing said.
      const named = memoryIo("", { EVAL_DATA_ROOT: "fixtures" });
      await run(named);
      equal(named.stderr.some((l) => l.startsWith("using the bundled")), false, name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
