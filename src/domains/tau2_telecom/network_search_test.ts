import assert from "node:assert/strict";
import { phoneWorld } from "./_testing.ts";
import type { TelecomUserDb } from "./data_model.ts";
import { simStatus, simulateNetworkSearch } from "./network_search.ts";

function searched(change: (p: TelecomUserDb) => void): [string, string, string] {
  const phone = phoneWorld();
  change(phone);
  simulateNetworkSearch(phone);
  const d = phone.device;
  return [d.network_connection_status, d.network_technology_connected, d.network_signal_strength];
}

Deno.test("simulateNetworkSearch() connects by mode preference with the local signal", () => {
  assert.deepEqual(searched(() => {}), ["connected", "5G", "excellent"]);
  assert.deepEqual(
    searched((p) => p.device.network_mode_preference = "4g_only"),
    ["connected", "4G", "good"],
  );
  assert.deepEqual(
    searched((p) => p.device.network_mode_preference = "3g_only"),
    ["connected", "3G", "fair"],
  );
  assert.deepEqual(
    searched((p) => p.device.network_mode_preference = "2g_only"),
    ["connected", "2G", "poor"],
  );
});

Deno.test("simulateNetworkSearch() falls back to 4G when 5G has no signal", () => {
  assert.deepEqual(
    searched((p) => p.surroundings.signal_strength["5G"] = "none"),
    ["connected", "4G", "good"],
  );
  // A technology missing from the location's table has no signal.
  assert.deepEqual(
    searched((p) => {
      delete p.surroundings.signal_strength["4G"];
      p.device.network_mode_preference = "4g_only";
    }),
    ["connected", "4G", "none"],
  );
});

Deno.test("simulateNetworkSearch() gives no service without a usable SIM, radio, APN or line", () => {
  const none = ["no_service", "none", "none"];
  assert.deepEqual(searched((p) => p.device.sim_card_missing = true), none);
  assert.deepEqual(searched((p) => p.device.sim_card_status = "locked_pin"), none);
  assert.deepEqual(searched((p) => p.device.sim_card_status = "locked_puk"), none);
  assert.deepEqual(searched((p) => p.device.airplane_mode = true), none);
  assert.deepEqual(searched((p) => p.device.active_apn_settings.apn_name = "broken"), none);
  assert.deepEqual(searched((p) => p.surroundings.line_active = false), none);
});

Deno.test("simStatus() reports a missing card over the card's own status", () => {
  const phone = phoneWorld();
  phone.device.sim_card_status = "locked_pin";
  assert.equal(simStatus(phone), "locked_pin");
  phone.device.sim_card_missing = true;
  assert.equal(simStatus(phone), "missing");
});
