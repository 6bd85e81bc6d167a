/**
 * EVA-Bench's cultures: the later release stores the caller's identity as
 * placeholders (`<FIRST_NAME>`, `<LAST_NAME>`, their `_ROMANIZED` forms, `<PHONE>`,
 * `<COMPANION_FIRST_NAME>`) and gives their values per language in
 * `culture_overrides` and `romanized_culture_overrides`. A world is resolved for one
 * language the way the reference resolves it before its tools see it: placeholders
 * filled (romanized ones in lower case, for e-mail addresses), and every catalog or
 * facility entry named in the alias tables given its `name_aliases` (the table's
 * base names, then that language's translations).
 *
 * @module
 */
import { z } from "zod";

/** The seven cultures the release ships. */
export const EVA_LANGUAGES = ["en", "es", "fr", "fr-CA", "de", "hi", "ko"] as const;

/** Each culture's name, as prompts say it. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: "English",
  es: "Spanish",
  fr: "French",
  "fr-CA": "Canadian French",
  de: "German",
  hi: "Hindi",
  ko: "Korean",
};

const Person = z.looseObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  phone: z.string().optional(),
  companion: z.looseObject({ first_name: z.string().optional() }).optional(),
});

export const CultureSchema = z.object({
  culture_overrides: z.record(z.string(), Person).optional(),
  romanized_culture_overrides: z.record(z.string(), Person).optional(),
});
export type Culture = z.infer<typeof CultureSchema>;

/** The placeholder values of one language. */
export interface CultureValues {
  first: string;
  last: string;
  firstRomanized: string;
  lastRomanized: string;
  phone: string;
  companion: string;
  companionRomanized: string;
}

/** A language the record has no names for. */
export class CultureError extends Error {}

/** The values of `language`, as the reference picks them (romanized falls back to native). */
export function cultureValues(record: Culture, language: string): CultureValues {
  const native = record.culture_overrides ?? {};
  if (!Object.hasOwn(native, language)) {
    throw new CultureError(
      `culture_overrides has no entry for language "${language}" (it has: ${
        Object.keys(native).join(", ") || "none"
      })`,
    );
  }
  const entry = native[language]!;
  const romanizedAll = record.romanized_culture_overrides ?? {};
  const rom = Object.hasOwn(romanizedAll, language) ? romanizedAll[language]! : entry;
  const companion = entry.companion?.first_name ?? "";
  const companionRom = rom.companion?.first_name || companion;
  return {
    first: entry.first_name ?? "",
    last: entry.last_name ?? "",
    firstRomanized: rom.first_name ?? "",
    lastRomanized: rom.last_name ?? "",
    phone: entry.phone ?? "",
    companion,
    companionRomanized: companion ? companionRom : "",
  };
}

/** A JSON value with the culture's placeholders filled, in the reference's order. */
export function fillCulture(value: unknown, v: CultureValues): unknown {
  if (typeof value === "string") return fillText(value, v);
  if (Array.isArray(value)) return value.map((x) => fillCulture(x, v));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[k] = fillCulture(x, v);
    return out;
  }
  return value;
}

function fillText(s: string, v: CultureValues): string {
  if (!s.includes("<")) return s;
  let out = s.replaceAll("<FIRST_NAME_ROMANIZED>", v.firstRomanized.toLowerCase())
    .replaceAll("<LAST_NAME_ROMANIZED>", v.lastRomanized.toLowerCase())
    .replaceAll("<FIRST_NAME>", v.first)
    .replaceAll("<LAST_NAME>", v.last);
  if (v.phone) out = out.replaceAll("<PHONE>", v.phone);
  if (v.companion) {
    out = out.replaceAll("<COMPANION_FIRST_NAME_ROMANIZED>", v.companionRomanized.toLowerCase())
      .replaceAll("<COMPANION_FIRST_NAME>", v.companion);
  }
  return out;
}

/** One alias table (`aliases/<slug>.json`): a canonical name, its base aliases, translations. */
export const AliasTableSchema = z.looseObject({
  name: z.string(),
  base: z.array(z.string()),
  translations: z.record(z.string(), z.array(z.string())).default({}),
});
export type AliasTable = z.infer<typeof AliasTableSchema>;

/**
 * Gives every object whose `name` has an alias table its `name_aliases` for this
 * language (base names, then the language's translations, first occurrence kept),
 * at any depth, in place.
 */
export function injectAliases(
  value: unknown,
  index: ReadonlyMap<string, AliasTable>,
  language: string,
): void {
  if (Array.isArray(value)) {
    for (const x of value) injectAliases(x, index, language);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  const o = value as Record<string, unknown>;
  const name = o.name;
  if (typeof name === "string" && index.has(name)) {
    const table = index.get(name)!;
    const translated = Object.hasOwn(table.translations, language)
      ? table.translations[language]!
      : [];
    o.name_aliases = [...new Set([...table.base, ...translated])];
  }
  for (const x of Object.values(o)) injectAliases(x, index, language);
}

/** Replaces `<LOC:Name>` tokens with the language's first translation of that alias. */
export function fillLocations(
  text: string,
  index: ReadonlyMap<string, AliasTable>,
  language: string,
): string {
  return text.replace(/<LOC:([^>]+)>/g, (_m, name: string) => {
    const table = index.get(name);
    if (!table || language === "en") return name;
    const translated = table.translations[language] ?? [];
    return translated[0] ?? name;
  });
}

/** A world resolved for a language: placeholders filled, then aliases injected. */
export function resolveWorld(
  db: unknown,
  record: Culture,
  language: string,
  index: ReadonlyMap<string, AliasTable>,
): Record<string, unknown> {
  const resolved = fillCulture(db, cultureValues(record, language)) as Record<string, unknown>;
  if (index.size > 0) injectAliases(resolved, index, language);
  return resolved;
}
