import assert from "node:assert/strict";
import { DTMF_KEY, DTMF_KEY_CHARS, DTMF_KEYS, DTMF_KEYS_TEXT, isDtmfKeys } from "./keys.ts";
import { DTMF_KEYPAD } from "../audio/dtmf.ts";

Deno.test("the key patterns accept exactly the sixteen keys", () => {
  for (let code = 0; code < 128; code++) {
    const c = String.fromCharCode(code);
    assert.equal(DTMF_KEY.test(c), DTMF_KEY_CHARS.includes(c), JSON.stringify(c));
    assert.equal(DTMF_KEYS.test(c), DTMF_KEY_CHARS.includes(c), JSON.stringify(c));
  }
  assert.equal(DTMF_KEY_CHARS.length, 16);
  assert.equal(DTMF_KEYS.source, "^[0-9*#A-D]+$");
  assert.equal(DTMF_KEYS_TEXT, "0-9, *, #, A-D");
});

Deno.test("the tone keypad holds exactly the alphabet, each key once", () => {
  assert.deepEqual([...DTMF_KEYPAD.join("")].sort(), [...DTMF_KEY_CHARS].sort());
});

Deno.test("isDtmfKeys wants a non-empty string of upper-case keys", () => {
  assert.equal(isDtmfKeys("0123456789*#ABCD"), true);
  assert.equal(DTMF_KEY.test("12"), false);
  for (const bad of ["", "a", "12e", " 1", 12, null, undefined]) {
    assert.equal(isDtmfKeys(bad), false, String(bad));
  }
});
