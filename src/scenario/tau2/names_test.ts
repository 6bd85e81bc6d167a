import { deepEqual, equal } from "node:assert/strict";
import { compareIds, compareNumericIds, numberedName, telecomName } from "./names.ts";

Deno.test("numberedName() prefixes the task id with the suite", () => {
  equal(numberedName("tau2_retail", "17"), "tau2_retail__17");
});

Deno.test("telecomName() spells category, issues and a persona other than None", () => {
  equal(
    telecomName("tau2_telecom", "[mms_issue]bad_wifi_calling|unseat_sim_card[PERSONA:Hard]"),
    "tau2_telecom__mms_issue__bad_wifi_calling__unseat_sim_card__hard",
  );
  equal(
    telecomName("tau2_telecom_workflow", "[service_issue]airplane_mode_on[PERSONA:Easy]"),
    "tau2_telecom_workflow__service_issue__airplane_mode_on__easy",
  );
  equal(
    telecomName("tau2_telecom", "[mobile_data_issue]data_mode_off[PERSONA:None]"),
    "tau2_telecom__mobile_data_issue__data_mode_off",
  );
});

Deno.test("telecomName() refuses an id not of the telecom form", () => {
  equal(telecomName("tau2_telecom", "12"), undefined);
  equal(telecomName("tau2_telecom", "[mms_issue]x"), undefined);
});

Deno.test("numeric ids sort by value, other ids after them", () => {
  deepEqual(["10", "9", "x", "100", "0"].sort(compareNumericIds), ["0", "9", "10", "100", "x"]);
});

Deno.test("telecom ids sort by code point, as Python's sorted()", () => {
  deepEqual(["[b]x", "[a]z|y", "[a]z", "[A]q"].sort(compareIds), [
    "[A]q",
    "[a]z",
    "[a]z|y",
    "[b]x",
  ]);
});
