/**
 * `calculate` on an everyday expression and on hostile ones: every input is bounded,
 * so the bombs cost about what the everyday one does.
 *
 *   deno bench src/domains/tau2_common/calculate_bench.ts
 */
import { calculate } from "./calculate.ts";

const EVERYDAY = "(543.3 + 20.93 + 121.1) * 0.9 - 15 / 4";
const BOMBS = {
  "2**999999 × 100": "2**999999".repeat(100),
  "100 × 2**999999 joined by *": Array(100).fill("2**999999").join("*"),
  "250 divisions of 2040-bit integers": Array(250).fill("2**2040/3**1000").join("+"),
  "5975 nested signs": "-".repeat(5975) + "1",
};

Deno.bench({ name: "calculate: everyday expression", baseline: true, group: "calculate" }, () => {
  calculate(EVERYDAY);
});
for (const [name, expression] of Object.entries(BOMBS)) {
  Deno.bench({ name: `calculate: ${name}`, group: "calculate" }, () => {
    calculate(expression);
  });
}
