import assert from "node:assert/strict";
import {
  type AliasTable,
  CultureError,
  cultureValues,
  fillCulture,
  fillLocations,
  injectAliases,
  resolveWorld,
} from "./culture.ts";

const record = {
  culture_overrides: {
    en: { first_name: "Marcus", last_name: "Chen" },
    fr: { first_name: "Rémi", last_name: "Rousseau" },
    ko: { first_name: "재현", last_name: "주" },
  },
  romanized_culture_overrides: {
    fr: { first_name: "Remi", last_name: "Rousseau" },
    ko: { first_name: "Jaehyeon", last_name: "Ju" },
  },
};

const aliases = new Map<string, AliasTable>([
  ["Headquarters", {
    name: "Headquarters",
    base: ["hq", "headquarters"],
    translations: { fr: ["siège social", "hq"] },
  }],
]);

Deno.test("placeholders fill from the language's overrides, romanized ones in lower case (e-mail local parts)", () => {
  const v = cultureValues(record, "ko");
  assert.deepEqual(
    fillCulture({
      name: "<FIRST_NAME> <LAST_NAME>",
      email: "<FIRST_NAME_ROMANIZED>.<LAST_NAME_ROMANIZED>@company.com",
      list: ["<LAST_NAME>", 3, null],
    }, v),
    { name: "재현 주", email: "jaehyeon.ju@company.com", list: ["주", 3, null] },
  );
  // No romanized entry: the native names stand in (English).
  assert.equal(
    fillCulture("<FIRST_NAME_ROMANIZED>", cultureValues(record, "en")),
    "marcus",
  );
  // Without a phone the placeholder stays, as the reference leaves it.
  assert.equal(fillCulture("<PHONE>", cultureValues(record, "fr")), "<PHONE>");
});

Deno.test("a language the record has no names for is a CultureError naming the ones it has", () => {
  assert.throws(
    () => cultureValues(record, "de"),
    (e: unknown) => e instanceof CultureError && /"de".*en, fr, ko/.test(e.message),
  );
});

Deno.test("alias tables give matching entries their base names then the language's translations, once each", () => {
  const world = {
    facilities: { buildings: { BLD1: { name: "Headquarters" }, BLD2: { name: "Annex" } } },
  };
  injectAliases(world, aliases, "fr");
  assert.deepEqual(world.facilities.buildings.BLD1, {
    name: "Headquarters",
    name_aliases: ["hq", "headquarters", "siège social"],
  });
  assert.deepEqual(world.facilities.buildings.BLD2, { name: "Annex" });
  const resolved = resolveWorld(
    { b: { name: "Headquarters" }, who: "<FIRST_NAME>" },
    record,
    "en",
    aliases,
  );
  assert.deepEqual(resolved, {
    b: { name: "Headquarters", name_aliases: ["hq", "headquarters"] },
    who: "Marcus",
  });
});

Deno.test("<LOC:Name> reads as the name in English and as its first translation elsewhere", () => {
  assert.equal(fillLocations("at <LOC:Headquarters>", aliases, "en"), "at Headquarters");
  assert.equal(fillLocations("at <LOC:Headquarters>", aliases, "fr"), "at siège social");
  assert.equal(fillLocations("at <LOC:Headquarters>", aliases, "de"), "at Headquarters");
  assert.equal(fillLocations("<LOC:Nowhere>", aliases, "fr"), "Nowhere");
});
