import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { DOMAIN_IDS, getDomain } from "../domains/registry.ts";
import type { DiscoverableInfo } from "../domains/domain.ts";
import { argumentsJsonSchema } from "../schema/json_schema.ts";

const FLAGS = {
  domain: { type: "string", value: "D", description: `a domain: ${DOMAIN_IDS.join(", ")}` },
  json: {
    type: "boolean",
    description: "one JSON line per tool: name, side, kind, effect, description and\n" +
      "its arguments' JSON Schema (as an agent is offered it)",
  },
} as const satisfies FlagTable;

const help = `tools: a domain's tools, their arguments and who may call them

Usage: cli.ts tools --domain D [--json]

Lists each tool of the domain: the side that offers it (agent: the agent under test;
user: the caller's phone, in dual-control domains), whether it reads the world, writes
it or acts on the call (ending it, transferring, pressing keys), its arguments with
their types (from the tool's schema; "?" marks an optional one) and its description.
A scenario names these in agent.tools, user.tools and expect.reference_actions.

Flags:
${flagRows(FLAGS)}`;

export const command: Command = {
  summary: "a domain's tools with their arguments, descriptions and side",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const id = values.domain ?? positionals[0];
    if (id === undefined) {
      throw new InputError({
        field: "--domain",
        message: "required",
        hint: `one of ${DOMAIN_IDS.join(", ")}`,
      });
    }
    const domain = await getDomain(id);
    const tools = [...domain.tools].sort((a, b) =>
      a.side.localeCompare(b.side) || a.name.localeCompare(b.name)
    );
    if (values.json) {
      for (const t of tools) {
        io.out(JSON.stringify({
          name: t.name,
          ...(t.aliases?.length ? { aliases: t.aliases } : {}),
          side: t.side,
          kind: t.kind,
          ...(t.effect ? { effect: t.effect } : {}),
          description: t.description,
          parameters: argumentsJsonSchema(t.args),
        }));
      }
      await io.flush();
      return 0;
    }
    io.out(`${domain.id}: ${tools.length} tools`);
    for (const t of tools) {
      const kind = t.effect ? `${t.kind}, ${t.effect.replace("_", " ")}` : t.kind;
      io.out("");
      io.out(
        `${t.side.padEnd(5)} ${t.name}(${argumentList(argumentsJsonSchema(t.args))})  [${kind}]`,
      );
      for (const line of wrap(t.description, 86)) io.out(`      ${line}`);
    }
    printDiscoverable(io, domain.discoverable ?? []);
    await io.flush();
    return 0;
  },
};

/** Tools reached through a gateway tool, after the domain's own (banking's discoverable ones). */
function printDiscoverable(io: { out(line: string): void }, tools: readonly DiscoverableInfo[]) {
  if (tools.length === 0) return;
  io.out("");
  io.out(`${tools.length} discoverable tools, called through the tool named after "via":`);
  for (
    const t of [...tools].sort((a, b) =>
      a.side.localeCompare(b.side) || a.name.localeCompare(b.name)
    )
  ) {
    const args = t.params.map((p) => `${p.name}${p.required ? "" : "?"}: ${p.type}`).join(", ");
    io.out("");
    io.out(`${t.side.padEnd(5)} ${t.name}(${args})  [${t.kind}, via ${t.via}]`);
    for (const line of wrap(t.description, 86)) io.out(`      ${line}`);
  }
}

/** `order_id: string, items?: array<string>` from a JSON Schema object. */
export function argumentList(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([name, p]) =>
    `${name}${required.has(name) ? "" : "?"}: ${typeText(p)}`
  ).join(", ");
}

function typeText(p: Record<string, unknown>): string {
  if (Array.isArray(p.enum)) return p.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (p.const !== undefined) return JSON.stringify(p.const);
  const union = (p.anyOf ?? p.oneOf) as Record<string, unknown>[] | undefined;
  if (union) return union.map(typeText).join(" | ");
  if (p.type === "array") {
    const items = p.items as Record<string, unknown> | undefined;
    return `array<${items ? typeText(items) : "any"}>`;
  }
  if (p.type === "object" && p.properties) return `{${argumentList(p)}}`;
  if (Array.isArray(p.type)) return p.type.join(" | ");
  return typeof p.type === "string" ? p.type : "any";
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
