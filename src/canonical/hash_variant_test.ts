import assert from "node:assert/strict";
import { canonicalJsonOf, dbHashOf, HASH_VARIANTS } from "./hash_variant.ts";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";

// Computed with EVA-Bench's src/eva/utils/hash_utils.py:get_dict_hash (ServiceNow/eva
// 997ae97) on json.loads of each input; NeMo's evaluation/db_hash.py gives the same.
const EVA_VECTORS: [string, string][] = [
  ["{}", "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"],
  [
    '{"session": {"employee_auth": true}, "tickets": {}}',
    "7959c016a5d65dcc749c9ec1cb8448f914323e1c512bb89ca320267edac93654",
  ],
  [
    '{"employees": {"EMP1": {"first_name": "R\\u00e9mi", "last_name": "\\uc8fc", "system_accounts": [{"case_id": "B", "status": "active"}, {"case_id": "A", "status": "active"}]}}}',
    "42916a670270bf38982a07bda80dd5ecdee0bc07126f6fd2d980d800ce92e6f5",
  ],
  [
    '{"notifications": [{"recipient": "pdmp", "npi": "2"}, {"recipient": "hr_compliance", "npi": "1"}], "n": 2.0, "x": 0.5}',
    "fadc2964d62834490ac2f276d3f42d7b179d163c71d7bca42be2da0c8c2512d7",
  ],
  [
    '{"group_memberships": [{"group_code": "GRP-B", "status": "NONE"}, {"group_code": "GRP-A", "status": " null "}], "asset_recoveries": {"R": {"assets_to_recover": ["b", "a"]}}}',
    "e61c43261564caf21836831fc8bc3f879e9df0c63555bdc3f21e9342b42c65c9",
  ],
  [
    '{"pto_balances": {"pto": 15.0, "sick": 4.5}, "rate": 1e-05, "big": 1e16, "t": [true, false, null]}',
    "a373f9580f238769b19c5e8176cce8f71a8b3275ff7ab757d947c5a89cb42c6e",
  ],
  [
    '{"bookings": [3, "a", {"id": 1}, [2, 1]], "standby_list": [], "interactions": {"INT-000001": {"flow_id": "login_issue"}}}',
    "00ac78ce98aba26f5cd2735863f266a2f6347b057f5c736347cc5e5234ce3647",
  ],
];

// reference-harness §4's vectors, computed with NeMo's evaluation/db_hash.py.
const NEMO_VECTORS: [string, string][] = [
  ["{}", "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"],
  [
    '{"x": 1, "session": {"id": "abc"}}',
    "5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22",
  ],
  [
    '{"qty": 1.0, "meal": "none", "fares": [1.0, 2.0]}',
    "258a4f18f0f281b9a7c94f7b2f4477ddbc2b53507aec88033137be928cb8d420",
  ],
  [
    '{"a": 0.1, "b": 1e-05, "c": 2.5}',
    "0901e74b4cba2207991316fedd96ec5eab291444a141e409eddb920094ad2dab",
  ],
  ['{"name": "José ✓"}', "daed9bc253c85794b9e1e42563529bafccae8090de01be9e7838f615cb28e3a7"],
  [
    '{"bookings": [{"id": "Y"}, {"id": "X"}]}',
    "95168b02c1e92a0c11dc934ae0a2527273f7d18f573f932a378742818bee99d7",
  ],
  [
    '{"a": [{"b": 1.0, "c": "NULL"}, 2.0], "d": " Null "}',
    "a7125b9f07a2b21935febdbcfdea66b269f66be8c838b1fca585c22f3d9ee1b0",
  ],
];

Deno.test("the eva variant reproduces EVA-Bench's get_dict_hash (997ae97) on its vectors", () => {
  for (const [input, sha] of EVA_VECTORS) {
    assert.equal(dbHashOf("eva", JSON.parse(input)), sha, input);
  }
});

Deno.test("the nemo variant reproduces NeMo's db_hash.py on reference-harness §4's vectors", () => {
  for (const [input, sha] of NEMO_VECTORS) {
    assert.equal(dbHashOf("nemo", JSON.parse(input)), sha, input);
  }
});

Deno.test("the two variants are one canonical text today (NeMo's file ports EVA's verbatim)", () => {
  for (const [input] of [...EVA_VECTORS, ...NEMO_VECTORS]) {
    const doc = JSON.parse(input);
    assert.equal(canonicalJsonOf("eva", doc), canonicalJsonOf("nemo", doc), input);
  }
  assert.deepEqual([...HASH_VARIANTS], ["nemo", "eva"]);
});

Deno.test("hash --variant and --domain name the variant; an unknown one is an input error", async () => {
  const doc = EVA_VECTORS[2]!;
  const eva = memoryIo(doc[0]);
  assert.equal(await run(["hash", "--variant", "eva"], eva), 0, eva.stderr.join("\n"));
  assert.deepEqual(JSON.parse(eva.stdout[0]!), {
    input: "<stdin>",
    variant: "eva",
    sha256: doc[1],
  });
  const byDomain = memoryIo(doc[0]);
  assert.equal(await run(["hash", "--domain", "eva_medical_hr"], byDomain), 0);
  assert.equal(JSON.parse(byDomain.stdout[0]!).variant, "eva");
  const airline = memoryIo(doc[0]);
  assert.equal(await run(["hash", "--domain", "eva_airline"], airline), 0);
  assert.equal(JSON.parse(airline.stdout[0]!).variant, "nemo");
  const plain = memoryIo(doc[0]);
  assert.equal(await run(["hash"], plain), 0);
  assert.deepEqual(JSON.parse(plain.stdout[0]!), { input: "<stdin>", sha256: doc[1] });
  const bad = memoryIo(doc[0]);
  assert.equal(await run(["hash", "--variant", "tau2"], bad), 2);
  assert.match(bad.stderr.join("\n"), /unknown variant "tau2"/);
});
