/**
 * TypeScript declarations from JSON Schema, for the record types the library exports:
 * the zod schemas stay the one source of truth, and the package's public types are plain
 * declarations that name no type of zod's (`deno task schema` writes them to
 * `schemas/types.ts` beside the JSON Schemas, from the same zod schemas).
 *
 * It reads the subset zod's `toJSONSchema` writes: `type` (one or a list), `properties`
 * with `required`, `additionalProperties` (a record's values, or `{}` for an open
 * object), `propertyNames` with an `enum` (a record over those keys), `items`,
 * `prefixItems` (tuples), `enum`, `const`, `anyOf`/`oneOf`, and `description` (written as
 * each property's doc comment). Anything else is `unknown`.
 *
 * @module
 */

/** A JSON Schema node, as far as this module reads one. */
export type JsonSchemaNode = Record<string, unknown>;

/** One exported declaration: its name, doc comment and schema. */
export interface TypeDeclaration {
  name: string;
  doc: string;
  schema: JsonSchemaNode;
}

/** The text of a module declaring each type (`export type Name = ...;`), with its doc. */
export function typeScriptModule(header: string, declarations: readonly TypeDeclaration[]): string {
  const parts = [header.trimEnd(), ""];
  for (const d of declarations) {
    parts.push(docComment(d.doc, ""), `export type ${d.name} = ${typeOf(d.schema, "")};`, "");
  }
  return parts.join("\n");
}

/** The TypeScript type a schema node describes, indented for nesting at `indent`. */
export function typeOf(node: JsonSchemaNode, indent: string): string {
  if ("const" in node) return literal(node.const);
  if (Array.isArray(node.enum)) return union(node.enum.map(literal));
  const alternatives = (node.anyOf ?? node.oneOf) as JsonSchemaNode[] | undefined;
  if (Array.isArray(alternatives)) {
    return union(alternatives.map((a) => parenthesized(typeOf(a, indent))));
  }
  const type = node.type;
  if (Array.isArray(type)) {
    return union(type.map((t) => typeOf({ ...node, type: t }, indent)));
  }
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return arrayOf(node, indent);
    case "object":
      return objectOf(node, indent);
    default:
      return "unknown";
  }
}

function arrayOf(node: JsonSchemaNode, indent: string): string {
  const prefix = node.prefixItems as JsonSchemaNode[] | undefined;
  if (Array.isArray(prefix)) {
    const rest = node.items as JsonSchemaNode | undefined;
    const items = prefix.map((p) => typeOf(p, indent));
    if (rest && typeof rest === "object") items.push(`...${parenthesized(typeOf(rest, indent))}[]`);
    return `[${items.join(", ")}]`;
  }
  const items = node.items as JsonSchemaNode | undefined;
  return `${parenthesized(items ? typeOf(items, indent) : "unknown")}[]`;
}

function objectOf(node: JsonSchemaNode, indent: string): string {
  const properties = (node.properties ?? {}) as Record<string, JsonSchemaNode>;
  const required = new Set((node.required ?? []) as string[]);
  const extra = node.additionalProperties;
  const keys = (node.propertyNames as JsonSchemaNode | undefined)?.enum;
  const inner = indent + "  ";
  const lines: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    if (typeof value.description === "string") lines.push(docComment(value.description, inner));
    const optional = required.has(key) ? "" : "?";
    lines.push(`${inner}${propertyName(key)}${optional}: ${typeOf(value, inner)};`);
  }
  if (extra !== undefined && extra !== false) {
    const values = extra === true ? "unknown" : typeOf(extra as JsonSchemaNode, inner);
    if (Array.isArray(keys) && lines.length === 0) {
      // A record over a closed set of keys: every key required, or each one optional.
      const every = keys.every((k) => required.has(k as string));
      return `{ [K in ${union(keys.map(literal))}]${every ? "" : "?"}: ${values} }`;
    }
    // Named properties beside an index signature must fit it: an open object's do.
    lines.push(`${inner}[key: string]: ${lines.length > 0 ? "unknown" : values};`);
  }
  if (lines.length === 0) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function docComment(text: string, indent: string): string {
  const body = text.replace(/\*\//g, "*\\/").split("\n");
  if (body.length === 1) return `${indent}/** ${body[0]} */`;
  return [`${indent}/**`, ...body.map((l) => `${indent} * ${l}`.trimEnd()), `${indent} */`].join(
    "\n",
  );
}

function propertyName(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

function literal(value: unknown): string {
  return value === null ? "null" : JSON.stringify(value);
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

/** A type as an operand of `[]` or a union: a union in parentheses (nested ones too, harmlessly). */
function parenthesized(type: string): string {
  return type.includes(" | ") ? `(${type})` : type;
}
