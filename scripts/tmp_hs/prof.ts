import { DataRoot } from "../../src/scenario/data_root.ts";
const t0 = performance.now();
const { allSuites } = await import("../../src/scenario/suites.ts");
const suites = await allSuites();
console.log("import", (performance.now() - t0).toFixed(0));
const root = new DataRoot("/work/shared/datasets");
for (const w of ["tau2_airline/db", "tau2_retail/db.json", "tau2_telecom/db.json"]) {
  const t = performance.now(); root.db(w); console.log(w, (performance.now() - t).toFixed(0));
}
for (const f of ["tau2_airline/tasks_voice.json", "tau2_retail/tasks_voice.json", "tau2_telecom/tasks_voice.json"]) {
  const t = performance.now(); root.json(f); console.log(f, (performance.now() - t).toFixed(0));
}
for (const s of suites) {
  const t = performance.now();
  const { scenarios } = await s.load(root, { expected: false });
  console.log(s.id, scenarios.length, "load", (performance.now() - t).toFixed(0));
}
