import { mulberry32 } from "../random/mulberry32.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  cachedCanonicalText,
  canonicalJson,
  formatPythonNumber,
  UNCACHED_OBJECT_KEYS,
} from "./canonical_json.ts";
import { dbHash, sha256Hex } from "./hash.ts";
import { deepFreeze } from "../env/deep_freeze.ts";
import { DataRoot } from "../scenario/data_root.ts";

// ---------------------------------------------------------------------------
// The vectors of reference-harness §4.

const VECTORS: [unknown, string][] = [
  [{}, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"],
  [{ x: 1 }, "5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22"],
  [
    { x: 1, session: { id: "abc" } },
    "5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22",
  ],
  [
    JSON.parse('{"qty": 1.0, "meal": "none", "fares": [1.0, 2.0]}'),
    "258a4f18f0f281b9a7c94f7b2f4477ddbc2b53507aec88033137be928cb8d420",
  ],
  [
    { a: 0.1, b: 1e-05, c: 2.5 },
    "0901e74b4cba2207991316fedd96ec5eab291444a141e409eddb920094ad2dab",
  ],
  [{ name: "José ✓" }, "daed9bc253c85794b9e1e42563529bafccae8090de01be9e7838f615cb28e3a7"],
  [
    { bookings: [{ id: "Y" }, { id: "X" }] },
    "95168b02c1e92a0c11dc934ae0a2527273f7d18f573f932a378742818bee99d7",
  ],
  [
    { a: [{ b: 1.0, c: "NULL" }, 2.0], d: " Null " },
    "a7125b9f07a2b21935febdbcfdea66b269f66be8c838b1fca585c22f3d9ee1b0",
  ],
  [
    { t: true, f: false, n: null },
    "22e00dc2f7b01420f940fbdbfbdf34fa0667cc6500186495023ba37722cbd05e",
  ],
];

Deno.test("dbHash reproduces every input vector of the reference", () => {
  for (const [doc, sha] of VECTORS) assert.equal(dbHash(doc), sha, JSON.stringify(doc));
});

Deno.test("canonicalJson reproduces the reference's canonical-string examples", () => {
  assert.equal(
    canonicalJson({ b: [{ id: "Y" }, { id: "X" }], a: 0.00001, u: "é" }),
    '{"a":1e-05,"b":[{"id":"Y"},{"id":"X"}],"u":"\\u00e9"}',
  );
  assert.equal(
    canonicalJson({ bookings: [{ id: "Y", z: 1 }, { id: "X" }] }),
    '{"bookings":[{"id":"X"},{"id":"Y","z":1}]}',
  );
});

const DATA_ROOT = Deno.env.get("EVAL_DATA_ROOT") ??
  fileURLToPath(new URL("../../../shared/datasets", import.meta.url));
const hasData = (() => {
  try {
    return Deno.statSync(`${DATA_ROOT}/eva_airline`).isDirectory;
  } catch {
    return false;
  }
})();

/** Real-data vectors of §4; truncated ones are given as prefix and suffix. */
const DATA_VECTORS: [string, (root: DataRoot) => unknown, string, string?][] = [
  [
    "eva 1.1.2 initial",
    (r) => r.db("eva_airline/1.1.2.json"),
    "1c8ca8c775d255dcedbcc1641eed5ea6925dc965b672302db254a9dc2c59fb16",
  ],
  [
    "eva 1.1.2 expected",
    (r) => _evaExpected(r, "1.1.2"),
    "d929bfc083ab92a135fd7c278fbf27100de9f05ffb77c7656d05037f86d8616b",
  ],
  ["eva 1.1.3 expected", (r) => _evaExpected(r, "1.1.3"), "1997776b", "ae292c"],
  ["eva 1.1.4 expected", (r) => _evaExpected(r, "1.1.4"), "30fd1a65", "a21a138c"],
  [
    "tau2_airline sharded db",
    (r) => r.db("tau2_airline/db"),
    "4da8c3f8adaffe176a9daaa5f20658bb9b36cd945733ab8f9ecf2e8bcbaabcc8",
  ],
  [
    "tau2_retail db.json",
    (r) => r.db("tau2_retail/db.json"),
    "743c9e1ec7e53de1b992f5521630e347ec3e25e5e215a2b056651106540ac0f8",
  ],
  ["tau2_telecom db.json", (r) => r.db("tau2_telecom/db.json"), "4833e8dc", "01160eb1"],
  ["tau2_telecom user_db.json", (r) => r.db("tau2_telecom/user_db.json"), "5021b231", "632d3e35"],
];

function _evaExpected(root: DataRoot, id: string): unknown {
  const line = root.text("eva_airline/eva_airline_dataset.jsonl").split("\n")
    .find((l) => l.includes(`"id": "${id}"`) || l.includes(`"id":"${id}"`))!;
  return JSON.parse(line).ground_truth.expected_scenario_db;
}

Deno.test({
  name: "dbHash reproduces the reference's hashes of the real data files",
  ignore: !hasData,
  fn() {
    const root = new DataRoot(DATA_ROOT);
    for (const [label, load, prefix, suffix] of DATA_VECTORS) {
      const sha = dbHash(load(root));
      assert.ok(sha.startsWith(prefix), `${label}: ${sha}`);
      if (suffix) assert.ok(sha.endsWith(suffix), `${label}: ${sha}`);
    }
  },
});

// ---------------------------------------------------------------------------
// A second, deliberately simple implementation: normalise the whole document,
// then serialise it. No caching, no shortcuts.

const ORDER_INDEPENDENT = [
  "standby_list",
  "notifications",
  "bookings",
  "system_accounts",
  "group_memberships",
  "asset_recoveries",
];

/** Python `str.isspace()` characters, which `str.strip()` removes. */
const PY_SPACE = new Set(
  [
    0x9,
    0xa,
    0xb,
    0xc,
    0xd,
    0x1c,
    0x1d,
    0x1e,
    0x1f,
    0x20,
    0x85,
    0xa0,
    0x1680,
    0x2028,
    0x2029,
    0x202f,
    0x205f,
    0x3000,
  ]
    .concat(Array.from({ length: 11 }, (_, i) => 0x2000 + i)),
);

function pyStrip(s: string): string {
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  while (a < b && PY_SPACE.has(cps[a]!.codePointAt(0)!)) a++;
  while (b > a && PY_SPACE.has(cps[b - 1]!.codePointAt(0)!)) b--;
  return cps.slice(a, b).join("");
}

function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! - y[i]!;
  }
  return x.length - y.length;
}

function normalise(v: unknown): unknown {
  if (typeof v === "string") {
    const t = pyStrip(v).toLowerCase();
    return t === "none" || t === "null" ? null : v;
  }
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      let n = normalise(x);
      if (ORDER_INDEPENDENT.includes(k) && Array.isArray(n)) {
        const keyed = n.map((e, i) => ({ key: serialise(e, ", ", ": "), i, e }));
        keyed.sort((p, q) => byCodePoint(p.key, q.key) || p.i - q.i);
        n = keyed.map((k) => k.e);
      }
      out[k] = n;
    }
    return out;
  }
  return v;
}

function pyNumber(n: number): string {
  if (Number.isInteger(n)) return BigInt(n).toString();
  // repr: shortest round-trip digits; exponent form below 1e-4.
  if (Math.abs(n) >= 1e-4) return String(n);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(n.toExponential())!;
  return `${m[1]}e${m[2]}${m[3]!.length < 2 ? "0" + m[3] : m[3]}`;
}

function pyString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short: Record<number, string> = {
      0x22: '\\"',
      0x5c: "\\\\",
      0x0a: "\\n",
      0x0d: "\\r",
      0x09: "\\t",
      0x08: "\\b",
      0x0c: "\\f",
    };
    if (short[c]) out += short[c];
    else if (c >= 0x20 && c <= 0x7e) out += s[i];
    else out += "\\u" + c.toString(16).padStart(4, "0");
  }
  return out + '"';
}

function serialise(v: unknown, sep: string, colon: string): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return pyNumber(v);
  if (typeof v === "string") return pyString(v);
  if (Array.isArray(v)) return "[" + v.map((x) => serialise(x, sep, colon)).join(sep) + "]";
  const o = v as Record<string, unknown>;
  return "{" + Object.keys(o).sort(byCodePoint)
    .map((k) => pyString(k) + colon + serialise(o[k], sep, colon)).join(sep) +
    "}";
}

function simpleCanonical(doc: unknown): string {
  if (typeof doc === "object" && doc !== null && !Array.isArray(doc)) {
    const { session: _, ...rest } = doc as Record<string, unknown>;
    doc = rest;
  }
  return serialise(normalise(doc), ",", ":");
}

// ---------------------------------------------------------------------------
// Generated documents.

const prng = mulberry32;

const KEYS = [
  ...ORDER_INDEPENDENT,
  "session",
  "id",
  "a",
  "B",
  "é",
  "z",
  "\u{1f600}",
  "\uff61",
  "key with space",
  "",
];
const NULLISH = [
  "none",
  "NULL",
  " Null ",
  "None",
  "\tnone\n",
  "\u3000null\u2003",
  "\x1fnone",
  "\ufeffnone",
  "\x85NULL",
  "nonE!",
  "nul",
  "nulll",
];
const CHARS = [
  "a",
  "Z",
  "0",
  " ",
  '"',
  "\\",
  "/",
  "\n",
  "\t",
  "\r",
  "\b",
  "\f",
  "\x00",
  "\x01",
  "\x1f",
  "\x7f",
  "\x80",
  "é",
  "ß",
  "✓",
  "\u2028",
  "\ufeff",
  "\uffff",
  "\u{1f600}",
  "\u{10ffff}",
  "\ud800",
  "\udfff",
];

function generator(seed: number) {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const float = (): number => {
    switch (Math.floor(r() * 8)) {
      case 0:
        return Math.floor(r() * 2000) - 1000; // integral
      case 1:
        return (Math.floor(r() * 2000) - 1000) / 4; // quarters and integral floats
      case 2:
        return (r() - 0.5) * 10 ** Math.floor(r() * 30 - 10);
      case 3:
        return r() * 10 ** -(5 + Math.floor(r() * 296)); // 1e-5 .. 1e-300
      case 4:
        return (r() < 0.5 ? -1 : 1) * 10 ** Math.floor(r() * 22); // 1 .. 1e21
      case 5:
        return (r() < 0.5 ? -1 : 1) * Math.floor(r() * 2 ** 64); // beyond 2^53
      case 6:
        return pick([0, -0, 1e-4, 9.999999999999999e-5, 1e16, 5e-324, 0.1 + 0.2, 1.5e300]);
      default:
        return Math.round(r() * 1e6) / 100;
    }
  };
  const string = (): string => {
    if (r() < 0.25) return pick(NULLISH);
    let s = "";
    const n = Math.floor(r() * 8);
    for (let i = 0; i < n; i++) s += pick(CHARS);
    return s;
  };
  const value = (depth: number): unknown => {
    const k = depth > 4 ? Math.floor(r() * 4) : Math.floor(r() * 6);
    switch (k) {
      case 0:
        return float();
      case 1:
        return string();
      case 2:
        return pick([true, false, null]);
      case 3:
        return r() < 0.5 ? float() : string();
      case 4:
        return Array.from({ length: Math.floor(r() * 5) }, () => value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        const n = Math.floor(r() * 5);
        for (let i = 0; i < n; i++) o[r() < 0.7 ? pick(KEYS) : string()] = value(depth + 1);
        return o;
      }
    }
  };
  return () => {
    const doc: Record<string, unknown> = {};
    const n = 1 + Math.floor(r() * 5);
    for (let i = 0; i < n; i++) doc[pick(KEYS)] = value(0);
    // Order-independent arrays of records, sometimes nested.
    if (r() < 0.6) {
      doc[pick(ORDER_INDEPENDENT)] = Array.from(
        { length: Math.floor(r() * 6) },
        () =>
          r() < 0.8
            ? { id: string(), n: float(), [pick(ORDER_INDEPENDENT)]: [value(3), value(3)] }
            : value(3),
      );
    }
    return doc;
  };
}

Deno.test("canonicalJson agrees with a simple independent implementation on generated documents", () => {
  const next = generator(20260417);
  for (let i = 0; i < 5000; i++) {
    const doc = next();
    const want = simpleCanonical(doc);
    assert.equal(canonicalJson(doc), want, `document ${i}: ${JSON.stringify(doc)}`);
    // Frozen documents go through the identity cache: same text, twice.
    const frozen = deepFreeze(structuredClone(doc));
    assert.equal(canonicalJson(frozen), want, `frozen document ${i}`);
    assert.equal(canonicalJson(frozen), want, `frozen document ${i}, cached`);
    // The hash is fed piece by piece and cached for frozen documents: same digest.
    const sha = sha256Hex(want);
    assert.equal(dbHash(doc), sha, `document ${i} hash`);
    assert.equal(dbHash(frozen), sha, `frozen document ${i} hash`);
    assert.equal(dbHash(frozen), sha, `frozen document ${i} hash, cached`);
  }
});

Deno.test("dbHash feeds big pieces in slices and caches only frozen documents' digests", () => {
  const big = { a: "x".repeat(200_000), b: [{ n: "\u00e9".repeat(70_000) }], c: 1.5 };
  assert.equal(dbHash(big), sha256Hex(canonicalJson(big)));
  const astral = { s: "\u{1f600}".repeat(40_000) };
  assert.equal(dbHash(astral), sha256Hex(canonicalJson(astral)));
  const live: Record<string, unknown> = { count: 1 };
  const before = dbHash(live);
  live.count = 2;
  assert.notEqual(dbHash(live), before);
  assert.equal(dbHash(live), dbHash({ count: 2 }));
  const frozen = deepFreeze({ count: 3, session: { id: "x" } });
  assert.equal(dbHash(frozen), dbHash({ count: 3 }));
  assert.equal(dbHash(frozen), dbHash({ count: 3 }));
});

Deno.test("cached canonical texts are flat strings once the optimising compiler runs", async () => {
  // V8 drops an unused char read as dead code, and the flatten with it: only V8's
  // own natives can tell a flat string from a rope, so the check runs in a child.
  const probe = fileURLToPath(new URL("./_flat_probe.ts", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--v8-flags=--allow-natives-syntax", "--allow-env=NODE_ENV", probe],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const seen = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(seen, { records: 200, cached: 200, flat: 200, tableFlat: true });
});

Deno.test("formatPythonNumber prints integral floats beyond 2^53 with all their digits", () => {
  // Python prints int(1.2345678901234568e+20) exactly, not the shortest digits.
  assert.equal(formatPythonNumber(1.2345678901234568e20), "123456789012345683968");
  assert.equal(formatPythonNumber(2 ** 60), "1152921504606846976");
  assert.equal(formatPythonNumber(-0), "0");
  assert.equal(formatPythonNumber(2.5e-7), "2.5e-07");
  assert.equal(formatPythonNumber(1e-4), "0.0001");
});

Deno.test("strings that read none or null after Python's strip become null, others do not", () => {
  assert.equal(canonicalJson({ a: "\x1fnone\x85" }), '{"a":null}');
  assert.equal(canonicalJson({ a: "\ufeffnone" }), '{"a":"\\ufeffnone"}');
  assert.equal(canonicalJson({ a: "\u3000NULL\u2003" }), '{"a":null}');
});

Deno.test("keys sort by code point, a lone surrogate as its own code point", () => {
  assert.equal(
    canonicalJson({ "\uff61": 1, "\ud800": 2, "\u{10000}": 3, "\ud800\uff61": 4 }),
    '{"\\ud800":2,"\\ud800\\uff61":4,"\\uff61":1,"\\ud800\\udc00":3}',
  );
});

Deno.test("a frozen table bigger than UNCACHED_OBJECT_KEYS is cached only when written out again", () => {
  const rows: Record<string, unknown> = {};
  for (let i = 0; i <= UNCACHED_OBJECT_KEYS; i++) rows[`r${String(i).padStart(4, "0")}`] = { v: i };
  const table = deepFreeze(rows);
  const doc = deepFreeze({ t: table });
  const expected = `{"t":{${Object.keys(rows).map((k, i) => `"${k}":{"v":${i}}`).join(",")}}}`;
  assert.equal(canonicalJson(doc), expected);
  assert.equal(cachedCanonicalText(table), undefined);
  assert.equal(cachedCanonicalText(table.r0007 as object), '{"v":7}');
  assert.equal(dbHash(doc), sha256Hex(expected));
  assert.equal(cachedCanonicalText(table), expected.slice('{"t":'.length, -1));
  assert.equal(dbHash({ t: table }), sha256Hex(expected));
});

Deno.test("a fresh document's hash is written as bytes: shapes sharing a first key, cached records inside, texts across blocks", () => {
  // Records of one kind share a sorted key list, looked up by their first key: one
  // with the same first key but other keys, or the same keys in another order,
  // must not take another's list.
  const records = [
    { b: 1, a: 2 },
    { b: 1, c: 3 },
    { b: 1, a: 2, c: 3 },
    { a: 2, b: 1 },
    { b: "none", a: [{ z: 1, y: 2 }] },
  ];
  const cached = deepFreeze({ q: "é", p: [1.5, 1e-7] });
  canonicalJson(deepFreeze({ r: cached })); // fills the text cache of `cached`
  assert.equal(cachedCanonicalText(cached), '{"p":[1.5,1e-07],"q":"\\u00e9"}');
  const doc = {
    session: { id: "dropped" },
    records,
    cached,
    // Past the 64 KiB byte block: a plain string, an escaped one, and many small
    // pieces whose bytes straddle the block's end.
    long: "x".repeat(70_000),
    escaped: '"\u00e9\n'.repeat(30_000),
    pieces: Array.from({ length: 20_000 }, (_, i) => ({ k: i, s: `s${i}`, f: i / 8 })),
    bookings: [{ id: "Y" }, { id: "X" }],
  };
  const want = simpleCanonical(doc);
  assert.equal(dbHash(doc), sha256Hex(want));
  assert.equal(canonicalJson(doc), want);
  assert.ok(want.startsWith('{"bookings":[{"id":"X"},{"id":"Y"}],"cached":{"p":[1.5,1e-07]'));
  assert.ok(
    want.includes(
      '"records":[{"a":2,"b":1},{"b":1,"c":3},{"a":2,"b":1,"c":3},{"a":2,"b":1},{"a":[{"y":2,"z":1}],"b":null}]',
    ),
  );
});
