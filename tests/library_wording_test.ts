/**
 * The library names no flag and no environment variable in what it says: a problem
 * carries an `option` and a `code` (src/problem/problem.ts), and only `src/cli/` and
 * `src/commands/` turn them into flags and hints (src/cli/problem.ts). This scans every
 * string literal of the library's files (comments left out) for a flag (`--name`) or
 * one of the project's environment variables; the few literals that must name one are
 * listed below with the reason.
 *
 * The library's files: every `.ts` under `src/` except `src/cli/`, `src/commands/`,
 * `src/testing/`, tests (`*_test.ts`), benchmarks (`*_bench.ts`) and `_`-prefixed
 * helpers.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** A flag, or an environment variable the project reads. */
const FORBIDDEN = /(?<![\w-])--[a-z]|\b(?:CALLBENCH_[A-Z_]+|EVAL_DATA_ROOT|OPENAI_[A-Z_]+)\b/;

/** Literals that may name a flag or a variable: file (under `src/`), a part of it, why. */
const ALLOWED: readonly { file: string; includes: string; reason: string }[] = [
  {
    file: "speech/tts_espeak.ts",
    includes: "--voices",
    reason: "an argument of the espeak-ng program, not a flag of ours",
  },
  {
    file: "speech/tts_espeak.ts",
    includes: "--stdout",
    reason: "an argument of the espeak-ng program, not a flag of ours",
  },
  {
    file: "speech/tts_espeak.ts",
    includes: "--allow-run=",
    reason: "the Deno permission the run lacks, which no flag of ours grants",
  },
  {
    file: "llm/model_settings.ts",
    includes: "CALLBENCH_AGENT_MODEL",
    reason: "the names of the variables modelSettings reads are data, not wording",
  },
  {
    file: "llm/model_settings.ts",
    includes: "CALLBENCH_USER_MODEL",
    reason: "the names of the variables modelSettings reads are data, not wording",
  },
  {
    file: "llm/model_settings.ts",
    includes: "OPENAI_BASE_URL",
    reason: "the names of the variables modelSettings reads are data, not wording",
  },
  {
    file: "llm/model_settings.ts",
    includes: "OPENAI_API_KEY",
    reason: "the default key variable's name is data, not wording",
  },
  {
    file: "domains/tau2_banking_knowledge/variants.ts",
    includes: "OPENAI_API_KEY",
    reason: "the variable the openai dense variants' key is read from (the reference's) is data",
  },
  {
    file: "speech/speech_options.ts",
    includes: "OPENAI_API_KEY",
    reason: "the default of the api_key_env setting (its value, and its schema description)",
  },
  {
    file: "scenario/scaffold.ts",
    includes: "--data-root or EVAL_DATA_ROOT",
    reason: "a comment written into scaffolded files, read by whoever edits them with the CLI",
  },
  {
    file: "report/markdown.ts",
    includes: "--agent-world self",
    reason: "report prose: names the eval flag that made a self-reported world",
  },
  {
    file: "report/summary.ts",
    includes: "--agent-world self",
    reason: "report note (and its schema description), as the markdown report",
  },
  {
    file: "report/summary.ts",
    includes: "--exclude-errors",
    reason: "report note: names the report flag that left error trials out",
  },
  {
    file: "score/verdict.ts",
    includes: "eval --label",
    reason: "schema description of a record field set by that eval flag",
  },
  {
    file: "score/verdict.ts",
    includes: "--min-agent-turns",
    reason: "schema description of a failure kind set by that eval flag",
  },
  {
    file: "score/verdict.ts",
    includes: "eval --agent-world self",
    reason: "schema description of a field set by that eval flag",
  },
  {
    file: "score/verdict.ts",
    includes: "eval --audio",
    reason: "schema description of figures only an audio run records",
  },
  {
    file: "score/verdict.ts",
    includes: "eval --out",
    reason: "schema description: where the recording sits in a run folder",
  },
  {
    file: "report/summary.ts",
    includes: "(eval --audio)",
    reason: "schema description of figures only an audio run records",
  },
  {
    file: "scenario/scenario.ts",
    includes: "Audio calls (eval --audio)",
    reason: "scenario-file schema description: the field applies to audio runs only",
  },
];

function libraryFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    const rel = relative(SRC, p).replaceAll("\\", "/");
    if (e.isDirectory) {
      if (!["cli", "commands", "testing"].includes(rel)) out.push(...libraryFiles(p));
    } else if (
      e.name.endsWith(".ts") && !e.name.startsWith("_") && !e.name.endsWith("_test.ts") &&
      !e.name.endsWith("_bench.ts")
    ) out.push(p);
  }
  return out;
}

/**
 * The string literals of TypeScript `source` (quoted strings and the text parts of
 * templates), comments left out. Regular expression literals are skipped by a
 * heuristic: a `/` where an operand would start.
 */
export function stringLiterals(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = source.length;
  // Template nesting: each entry is the brace depth at which a `${` opened.
  const templates: number[] = [];
  let depth = 0;
  let lastSignificant = "";
  const readTemplate = () => {
    // At the character after "`" or after the "}" closing an interpolation.
    let text = "";
    while (i < n) {
      const c = source[i]!;
      if (c === "\\") {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (c === "`") {
        i++;
        out.push(text);
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        out.push(text);
        templates.push(depth);
        depth++;
        return;
      } else {
        text += c;
        i++;
      }
    }
    out.push(text);
  };
  while (i < n) {
    const c = source[i]!;
    if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i++;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      let text = "";
      i++;
      while (i < n && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          text += source.slice(i, i + 2);
          i += 2;
        } else text += source[i++];
      }
      i++;
      out.push(text);
      lastSignificant = "a";
    } else if (c === "`") {
      i++;
      readTemplate();
      lastSignificant = "a";
    } else if (
      c === "/" && (lastSignificant === "" || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastSignificant))
    ) {
      // A regular expression literal: skip it (classes may hold a `/`).
      i++;
      let inClass = false;
      while (i < n && source[i] !== "\n") {
        const d = source[i]!;
        if (d === "\\") i += 2;
        else {
          i++;
          if (d === "[") inClass = true;
          else if (d === "]") inClass = false;
          else if (d === "/" && !inClass) break;
        }
      }
      lastSignificant = "a";
    } else if (c === "{") {
      depth++;
      lastSignificant = c;
      i++;
    } else if (c === "}") {
      depth--;
      i++;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        readTemplate();
        lastSignificant = "a";
      } else lastSignificant = c;
    } else {
      if (!/\s/.test(c)) {
        // `return /x/` and `typeof /x/`: a keyword before a regex.
        lastSignificant = /\w/.test(c)
          ? (/\b(?:return|typeof|case|of|in)$/.test(source.slice(Math.max(0, i - 7), i + 1)) &&
              !/\w/.test(source[i + 1] ?? "")
            ? "("
            : "a")
          : c;
      }
      i++;
    }
  }
  return out;
}

/** Every literal of the library that names a flag or a variable and is not allowed. */
export function libraryWordingViolations(): string[] {
  const found: string[] = [];
  for (const path of libraryFiles(SRC)) {
    const file = relative(SRC, path).replaceAll("\\", "/");
    for (const literal of stringLiterals(Deno.readTextFileSync(path))) {
      if (!FORBIDDEN.test(literal)) continue;
      if (ALLOWED.some((a) => a.file === file && literal.includes(a.includes))) continue;
      found.push(`src/${file}: ${JSON.stringify(literal)}`);
    }
  }
  return found;
}

Deno.test("string literals: quotes, templates and their parts; comments and regexes left out", () => {
  const src = [
    "// a '--comment'",
    '/* "--block" */',
    "const a = \"one\", b = 'two';",
    "const r = /--not-a-string/.test(x) ? 1 : 2;",
    'const t = `head ${f("inner")} tail`;',
    "const d = a / b / c; const e = 'after';",
    'function g() { return /x"y/; } const h = "h";',
  ].join("\n");
  assert.deepEqual(stringLiterals(src), ["one", "two", "head ", "inner", " tail", "after", "h"]);
});

Deno.test("the library's messages name no flag and no environment variable", () => {
  const violations = libraryWordingViolations();
  assert.deepEqual(
    violations,
    [],
    "give the problem an option/code (src/problem/problem.ts) and let src/cli/problem.ts " +
      "name the flag or variable:\n" + violations.join("\n"),
  );
});

Deno.test("every allowed literal still exists (the allowlist has no stale entry)", () => {
  for (const a of ALLOWED) {
    const literals = stringLiterals(Deno.readTextFileSync(join(SRC, a.file)));
    assert.ok(literals.some((l) => l.includes(a.includes)), `${a.file}: ${a.includes}`);
  }
});
