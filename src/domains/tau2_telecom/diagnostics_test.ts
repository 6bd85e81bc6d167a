import assert from "node:assert/strict";
import { phoneWorld } from "./_testing.ts";
import type { TelecomUserDb } from "./data_model.ts";
import { canSendMms, mobileDataWorking, speedTest } from "./diagnostics.ts";
import { simulateNetworkSearch } from "./network_search.ts";

function phone(change: (p: TelecomUserDb) => void = () => {}): TelecomUserDb {
  const p = phoneWorld();
  change(p);
  simulateNetworkSearch(p);
  return p;
}

Deno.test("mobileDataWorking() needs radio, service, roaming abroad, data on and quota left", () => {
  assert.equal(mobileDataWorking(phone()), true);
  assert.equal(mobileDataWorking(phone((p) => p.device.airplane_mode = true)), false);
  assert.equal(mobileDataWorking(phone((p) => p.device.sim_card_missing = true)), false);
  assert.equal(mobileDataWorking(phone((p) => p.device.data_enabled = false)), false);
  assert.equal(
    mobileDataWorking(phone((p) => p.surroundings.mobile_data_usage_exceeded = true)),
    false,
  );
  // Abroad: the phone's roaming setting and the carrier's permission are both needed.
  const abroad = (device: boolean, allowed: boolean) =>
    mobileDataWorking(phone((p) => {
      p.surroundings.is_abroad = true;
      p.device.roaming_enabled = device;
      p.surroundings.roaming_allowed = allowed;
    }));
  assert.equal(abroad(true, true), true);
  assert.equal(abroad(false, true), false);
  assert.equal(abroad(true, false), false);
});

Deno.test("speedTest() scales the technology's mid-range by signal, slow VPN and data saver", () => {
  assert.deepEqual(speedTest(phone()), { speed: 275, description: "Excellent" });
  assert.deepEqual(
    speedTest(phone((p) => p.device.network_mode_preference = "4g_only")),
    { speed: 44, description: "Good" },
  );
  assert.deepEqual(
    speedTest(phone((p) => p.device.network_mode_preference = "3g_only")),
    { speed: 1.5, description: "Poor" },
  );
  assert.deepEqual(
    speedTest(phone((p) => p.device.network_mode_preference = "2g_only")),
    { speed: 0.05, description: "Very Poor" },
  );
  assert.deepEqual(
    speedTest(phone((p) => p.device.data_saver_mode = true)),
    { speed: 55, description: "Good" },
  );
  const slowVpn = phone((p) => {
    p.device.vpn_connected = true;
    p.device.vpn_details = { server_address: null, protocol: null, server_performance: "poor" };
  });
  assert.deepEqual(speedTest(slowVpn), { speed: 27.5, description: "Good" });
  slowVpn.device.data_saver_mode = true;
  assert.deepEqual(speedTest(slowVpn), { speed: 5.5, description: "Fair" });
  assert.deepEqual(
    speedTest(phone((p) => p.device.data_enabled = false)),
    { speed: null, description: "No Connection" },
  );
});

Deno.test("canSendMms() needs data, 3G or better, no MMS over Wi-Fi, an MMSC and permissions", () => {
  assert.equal(canSendMms(phone()), true);
  assert.equal(canSendMms(phone((p) => p.device.data_enabled = false)), false);
  assert.equal(canSendMms(phone((p) => p.device.network_mode_preference = "2g_only")), false);
  assert.equal(canSendMms(phone((p) => p.device.network_mode_preference = "3g_only")), true);
  assert.equal(
    canSendMms(phone((p) => {
      p.device.wifi_calling_enabled = true;
      p.device.wifi_calling_mms_over_wifi = true;
    })),
    false,
  );
  assert.equal(canSendMms(phone((p) => p.device.wifi_calling_enabled = true)), true);
  assert.equal(canSendMms(phone((p) => p.device.active_apn_settings.mmsc_url = null)), false);
  assert.equal(
    canSendMms(phone((p) => p.device.app_statuses.messaging!.permissions.sms = false)),
    false,
  );
  assert.equal(
    canSendMms(phone((p) => p.device.app_statuses.messaging!.permissions.storage = false)),
    false,
  );
  assert.equal(canSendMms(phone((p) => delete p.device.app_statuses.messaging)), false);
});
