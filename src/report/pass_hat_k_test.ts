import { deepEqual as assertEquals, ok, throws } from "node:assert/strict";
import { bootstrapPass1, mulberry32, passHatK, passHatKCurve } from "./pass_hat_k.ts";

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

Deno.test("passHatK() is C(c,k)/C(n,k)", () => {
  // n=4, c=2: k=1 -> 2/4; k=2 -> C(2,2)/C(4,2) = 1/6; k=3 -> 0.
  ok(close(passHatK(4, 2, 1), 0.5));
  ok(close(passHatK(4, 2, 2), 1 / 6));
  assertEquals(passHatK(4, 2, 3), 0);
  // n=5, c=4, k=3: C(4,3)/C(5,3) = 4/10.
  ok(close(passHatK(5, 4, 3), 0.4));
  assertEquals(passHatK(3, 3, 3), 1);
  throws(() => passHatK(2, 1, 3), RangeError);
});

Deno.test("passHatKCurve() averages over scenarios up to the fewest trials", () => {
  // A: 4 trials, 2 successes; B: 3 trials, 3 successes; C: 3 trials, 1 success. K = 3.
  const curve = passHatKCurve([{ n: 4, c: 2 }, { n: 3, c: 3 }, { n: 3, c: 1 }]);
  assertEquals(curve.map((p) => p.k), [1, 2, 3]);
  // k=1: (1/2 + 1 + 1/3) / 3 = 11/18.
  ok(close(curve[0]!.pass_hat_k, 11 / 18));
  // k=2: (1/6 + 1 + 0) / 3 = 7/18.
  ok(close(curve[1]!.pass_hat_k, 7 / 18));
  // k=3: (0 + 1 + 0) / 3 = 1/3.
  ok(close(curve[2]!.pass_hat_k, 1 / 3));
  // (c/n)^k at k=2: (1/4 + 1 + 1/9) / 3 = 49/108.
  ok(close(curve[1]!.pass_power_k, 49 / 108));
  assertEquals(passHatKCurve([]), []);
});

Deno.test("bootstrapPass1() is seeded, deterministic and brackets the mean", () => {
  const counts = [{ n: 4, c: 1 }, { n: 4, c: 4 }, { n: 4, c: 2 }, { n: 4, c: 3 }, { n: 4, c: 0 }];
  const a = bootstrapPass1(counts, { seed: 7 });
  const b = bootstrapPass1(counts, { seed: 7 });
  assertEquals(a, b);
  const [lo, hi] = a!;
  ok(lo <= 0.5 && 0.5 <= hi, `${lo} <= 0.5 <= ${hi}`);
  ok(lo >= 0 && hi <= 1 && lo < hi);
  assertEquals(bootstrapPass1([{ n: 3, c: 3 }]), [1, 1]);
  assertEquals(bootstrapPass1([]), null);
});

Deno.test("mulberry32() gives the same numbers for the same seed", () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const xs = [a(), a(), a()];
  assertEquals(xs, [b(), b(), b()]);
  ok(xs.every((x) => x >= 0 && x < 1));
  ok(mulberry32(43)() !== xs[0]);
});
