import assert from "node:assert/strict";
import type { Environment } from "../../env/environment.ts";
import { phoneOf, phoneWorld, testEnvironment } from "./_testing.ts";
import type { TelecomUserDb } from "./data_model.ts";
import { simulateNetworkSearch } from "./network_search.ts";

const BAR = "📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%";

/** An Environment whose phone was changed (then searched) before the call. */
function envWith(change: (p: TelecomUserDb) => void): Environment {
  const phone = phoneWorld("555-000-1001");
  change(phone);
  simulateNetworkSearch(phone);
  return testEnvironment({ user_db: phone });
}

const text = (env: Environment, tool: string, args: Record<string, unknown> = {}) =>
  env.call("user", tool, args).result as string;

Deno.test("check tools describe the phone without changing it", () => {
  const env = envWith(() => {});
  const before = env.hashes();
  assert.equal(text(env, "check_status_bar"), `Status Bar: ${BAR}`);
  assert.equal(
    text(env, "run_speed_test"),
    "Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast.",
  );
  assert.equal(
    text(env, "check_network_status"),
    [
      "Airplane Mode: OFF",
      "SIM Card Status: active",
      "Cellular Connection: connected",
      "Cellular Signal: excellent",
      "Cellular Network Type: 5G",
      "Mobile Data Enabled: Yes",
      "Data Roaming Enabled: No",
      "Wi-Fi Radio: OFF",
      "Wi-Fi Connected: No",
    ].join("\n"),
  );
  assert.equal(
    text(env, "check_network_mode_preference"),
    "Network Mode Preference: 4g_5g_preferred",
  );
  assert.equal(text(env, "check_sim_status"), "Your SIM card is active and working.");
  assert.equal(text(env, "check_data_restriction_status"), "Data Saver mode is OFF.");
  assert.equal(
    text(env, "check_apn_settings"),
    "Current APN Name: internet\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc\n(These are technical settings, usually best left unchanged.)",
  );
  assert.equal(text(env, "check_wifi_status"), "Wi-Fi is turned OFF.");
  assert.equal(text(env, "check_wifi_calling_status"), "Wi-Fi Calling is currently turned OFF.");
  assert.equal(text(env, "check_vpn_status"), "VPN is turned OFF.");
  assert.equal(
    text(env, "check_installed_apps"),
    "The following apps are installed on the phone: messaging, browser",
  );
  assert.equal(
    text(env, "check_app_status", { app_name: "messaging" }),
    "Status for App: messaging\n - Permissions Granted:\n   - sms\n   - storage\n   - phone",
  );
  assert.equal(
    text(env, "check_app_permissions", { app_name: "browser" }),
    "App 'browser' has permission for: storage, network.",
  );
  assert.equal(text(env, "can_send_mms"), "Your messaging app can send MMS messages.");
  assert.equal(text(env, "check_payment_request"), "No payment request has been made.");
  assert.deepEqual(env.hashes(), before);
  assert.equal(env.actions.length, 0);
});

Deno.test("check tools report a broken phone", () => {
  const env = envWith((p) => {
    p.device.sim_card_status = "locked_puk";
    p.device.data_saver_mode = true;
    p.device.active_apn_settings.mmsc_url = null;
    p.device.wifi_enabled = true;
    p.device.wifi_calling_enabled = true;
    p.device.vpn_enabled_setting = true;
    p.device.app_statuses.browser!.permissions = {
      sms: false,
      storage: false,
      phone: false,
      network: false,
    };
  });
  assert.equal(text(env, "run_speed_test"), "Speed test failed: No Connection.");
  assert.equal(text(env, "check_sim_status"), "The SIM card is locked with a PUK code.");
  assert.equal(
    text(env, "check_data_restriction_status"),
    "Data Saver mode is ON (limits data usage).",
  );
  assert.match(text(env, "check_apn_settings"), /MMSC URL \(for picture messages\): Not Set/);
  assert.equal(text(env, "check_wifi_status"), "Wi-Fi is ON but not connected to any network.");
  assert.equal(text(env, "check_wifi_calling_status"), "Wi-Fi Calling is currently turned ON.");
  assert.equal(
    text(env, "check_vpn_status"),
    "VPN is turned ON in settings, but currently not connected.",
  );
  assert.equal(
    text(env, "check_app_status", { app_name: "browser" }),
    "Status for App: browser\n - Permissions: None granted.",
  );
  assert.equal(
    text(env, "check_app_permissions", { app_name: "browser" }),
    "App 'browser' currently has no permissions granted.",
  );
  assert.equal(
    text(env, "check_app_status", { app_name: "camera" }),
    "App 'camera' not found on this phone.",
  );
  assert.equal(
    text(env, "check_app_permissions", { app_name: "camera" }),
    "App 'camera' not found on this phone.",
  );
  assert.equal(text(env, "can_send_mms"), "Your messaging app cannot send MMS messages.");
  assert.match(
    text(env, "check_network_status"),
    /SIM Card Status: locked_puk\nCellular Connection: no_service/,
  );
});

Deno.test("check tools show Wi-Fi, VPN details and a payment request", () => {
  const env = envWith((p) => {
    p.device.wifi_enabled = true;
    p.device.wifi_connected = true;
    p.device.wifi_ssid = "Cafe";
    p.device.wifi_signal_strength = "fair";
    p.device.vpn_connected = true;
    p.device.vpn_details = {
      server_address: "10.0.0.1",
      protocol: "WireGuard",
      server_performance: "poor",
    };
    p.surroundings.payment_request = { bill_id: "B2", amount_due: 32.5, paid: false };
  });
  assert.equal(
    text(env, "check_wifi_status"),
    "Wi-Fi is ON and connected to 'Cafe'. Signal strength: fair.",
  );
  assert.match(
    text(env, "check_network_status"),
    /Wi-Fi Connected: Yes\nConnected Wi-Fi Network: Cafe$/,
  );
  assert.equal(
    text(env, "check_vpn_status"),
    "VPN is ON and connected. Details: {'server_address': '10.0.0.1', 'protocol': 'WireGuard', 'server_performance': 'poor'}",
  );
  assert.equal(
    text(env, "check_payment_request"),
    "You have a payment request for bill B2 of 32.5 USD.",
  );
});

Deno.test("toggle_data flips mobile data, records it and shows the status bar", () => {
  const env = envWith(() => {});
  const off = env.call("user", "toggle_data", {});
  assert.equal(
    off.result,
    "Mobile Data is now OFF.\nStatus Bar: 📶⁴ Excellent | 5G | 📵 Data Disabled | 🔋 80%",
  );
  assert.deepEqual(off.record, {
    action_type: "toggle_data",
    name: "toggle_data",
    arguments: {},
    result: { data_enabled: false },
    side: "user",
  });
  assert.equal(text(env, "toggle_data"), `Mobile Data is now ON.\nStatus Bar: ${BAR}`);
});

Deno.test("toggle_airplane_mode drops Wi-Fi and VPN going on and searches coming off", () => {
  const env = envWith((p) => {
    p.device.wifi_enabled = true;
    p.device.wifi_connected = true;
    p.device.wifi_ssid = "Home";
    p.device.vpn_connected = true;
    p.device.vpn_details = { server_address: "x", protocol: "y", server_performance: "good" };
  });
  const on = env.call("user", "toggle_airplane_mode", {});
  assert.equal(on.result, "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%");
  assert.deepEqual(on.record?.result, { airplane_mode: true });
  const d = phoneOf(env).device;
  assert.deepEqual(
    [d.wifi_connected, d.wifi_ssid, d.vpn_connected, d.vpn_details, d.network_connection_status],
    [false, null, false, null, "no_service"],
  );
  const off = env.call("user", "toggle_airplane_mode", {});
  assert.equal(off.result, `Airplane Mode is now OFF.\nStatus Bar: ${BAR}`);
  assert.equal(phoneOf(env).device.network_connection_status, "connected");
});

Deno.test("toggle_roaming, toggle_data_saver_mode and toggle_wifi_calling flip their setting", () => {
  const env = envWith(() => {});
  assert.equal(text(env, "toggle_roaming"), `Data Roaming is now ON.\nStatus Bar: ${BAR}`);
  assert.equal(phoneOf(env).device.roaming_enabled, true);
  assert.equal(
    text(env, "toggle_data_saver_mode"),
    "Data Saver Mode is now ON.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%",
  );
  assert.equal(
    text(env, "toggle_wifi_calling"),
    `Wi-Fi Calling is now ON.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%`,
  );
  assert.deepEqual(env.actions.map((a) => [a.name, a.result]), [
    ["toggle_roaming", { roaming_enabled: true }],
    ["toggle_data_saver_mode", { data_saver_mode: true }],
    ["toggle_wifi_calling", { wifi_calling_enabled: true }],
  ]);
});

Deno.test("toggle_wifi flips the radio, but not in airplane mode", () => {
  const env = envWith(() => {});
  assert.equal(text(env, "toggle_wifi"), `Wi-Fi is now ON.\nStatus Bar: ${BAR}`);
  assert.equal(text(env, "toggle_wifi"), `Wi-Fi is now OFF.\nStatus Bar: ${BAR}`);
  assert.deepEqual(env.actions.map((a) => a.result), [{ wifi_enabled: true }, {
    wifi_enabled: false,
  }]);
  const plane = envWith((p) => p.device.airplane_mode = true);
  const refused = plane.call("user", "toggle_wifi", {});
  assert.equal(
    refused.result,
    "Cannot change Wi-Fi settings while Airplane Mode is ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%",
  );
  assert.equal(refused.record, undefined);
});

Deno.test("set_network_mode_preference searches again; an unknown mode changes nothing", () => {
  const env = envWith(() => {});
  const out = env.call("user", "set_network_mode_preference", { mode: "3g_only" });
  assert.equal(
    out.result,
    "Preferred Network Mode set to: 3g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔋 80%",
  );
  assert.deepEqual(out.record?.arguments, { mode: "3g_only" });
  assert.deepEqual(out.record?.result, { network_mode_preference: "3g_only" });
  const bad = env.call("user", "set_network_mode_preference", { mode: "6G" });
  assert.equal(
    bad.result,
    "Failed to set network mode: '6G' is not a valid option. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\nStatus Bar: 📶² Fair | 3G | 📱 Data Enabled | 🔋 80%",
  );
  assert.equal(bad.record, undefined);
  assert.equal(phoneOf(env).device.network_mode_preference, "3g_only");
});

Deno.test("reseat_sim_card brings a missing SIM back", () => {
  const env = envWith((p) => p.device.sim_card_missing = true);
  const out = env.call("user", "reseat_sim_card", {});
  assert.equal(out.result, `SIM card re-seated successfully.\nStatus Bar: ${BAR}`);
  assert.deepEqual(out.record?.result, { sim_card_missing: false });
});

Deno.test("set_apn_settings stores validated settings and rejects bad ones with details", () => {
  const env = envWith((p) => p.device.active_apn_settings.apn_name = "broken");
  const out = env.call("user", "set_apn_settings", { apn_settings: { apn_name: "internet" } });
  assert.equal(out.result, `APN settings set to: internet\nStatus Bar: ${BAR}`);
  const full = {
    apn_name: "internet",
    reset_at_reboot: false,
    mms_apn: "mms",
    mmsc_url: "http://mms.carrier.com/mms/wapenc",
    mms_proxy: null,
    mms_port: null,
  };
  assert.deepEqual(phoneOf(env).device.active_apn_settings, full);
  assert.deepEqual(out.record?.arguments, { apn_settings: { apn_name: "internet" } });
  assert.deepEqual(out.record?.result, full);
  const bad = env.call("user", "set_apn_settings", {
    apn_settings: { apn_name: "fast", colour: 1 },
  });
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.result, {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: [
      { field: "apn_name", error: "Input should be 'internet' or 'broken'", type: "enum" },
      { field: "colour", error: "Extra inputs are not permitted", type: "extra_forbidden" },
    ],
  });
});

Deno.test("reset_apn_settings takes effect at the next reboot", () => {
  const env = envWith((p) => {
    p.device.active_apn_settings.apn_name = "broken";
    p.device.active_apn_settings.mmsc_url = null;
  });
  const reset = env.call("user", "reset_apn_settings", {});
  assert.equal(
    reset.result,
    "APN settings will reset at reboot.\nStatus Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%",
  );
  assert.deepEqual(reset.record?.result, { reset_at_reboot: true });
  const reboot = env.call("user", "reboot_device", {});
  assert.equal(
    reboot.result,
    `Resetting APN settings...\nRestarting network services...\nStatus Bar: ${BAR}`,
  );
  assert.deepEqual(reboot.record?.result, { rebooted: true });
  assert.equal(
    phoneOf(env).device.active_apn_settings.mmsc_url,
    "http://mms.carrier.com/mms/wapenc",
  );
  assert.equal(
    text(env, "reboot_device"),
    `Restarting network services...\nStatus Bar: ${BAR}`,
  );
});

Deno.test("connect_vpn and disconnect_vpn record only a real change", () => {
  const env = envWith(() => {});
  assert.equal(
    text(env, "connect_vpn"),
    "VPN connected successfully.\nStatus Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔒 VPN Connected | 🔋 80%",
  );
  assert.deepEqual(phoneOf(env).device.vpn_details, {
    server_address: "192.168.1.1",
    protocol: "OpenVPN",
    server_performance: "excellent",
  });
  assert.equal(text(env, "connect_vpn"), "VPN already connected.");
  assert.equal(text(env, "disconnect_vpn"), `VPN disconnected successfully.\nStatus Bar: ${BAR}`);
  assert.equal(
    text(env, "disconnect_vpn"),
    `No active VPN connection to disconnect.\nStatus Bar: ${BAR}`,
  );
  assert.deepEqual(env.actions.map((a) => [a.name, a.result]), [
    ["connect_vpn", { vpn_connected: true }],
    ["disconnect_vpn", { vpn_connected: false }],
  ]);
});

Deno.test("grant_app_permission grants a known permission, case-insensitively", () => {
  const env = envWith((p) => p.device.app_statuses.messaging!.permissions.sms = false);
  const out = env.call("user", "grant_app_permission", {
    app_name: "messaging",
    permission: "SMS",
  });
  assert.equal(
    out.result,
    `Success. Permission 'sms' granted to app 'messaging'.\nStatus Bar: ${BAR}`,
  );
  assert.deepEqual(out.record?.arguments, { app_name: "messaging", permission: "SMS" });
  assert.deepEqual(out.record?.result, { granted: true });
  assert.equal(phoneOf(env).device.app_statuses.messaging!.permissions.sms, true);
  assert.equal(
    text(env, "grant_app_permission", { app_name: "camera", permission: "sms" }),
    `Error. App 'camera' not found. Cannot grant permission.\nStatus Bar: ${BAR}`,
  );
  assert.equal(
    text(env, "grant_app_permission", { app_name: "messaging", permission: "location" }),
    `Error. Permission 'location' not tracked for app 'messaging', available permissions: ['sms', 'storage', 'phone', 'network']\nStatus Bar: ${BAR}`,
  );
  assert.equal(env.actions.length, 1);
});

Deno.test("make_payment pays the open request; without one it records nothing", () => {
  const none = envWith(() => {});
  const nothing = none.call("user", "make_payment", {});
  assert.deepEqual([nothing.result, nothing.record], [
    "You do not have a payment request.",
    undefined,
  ]);
  // The phone's number has no line here, so the sync leaves the request alone.
  const env = testEnvironment({
    user_db: (() => {
      const p = phoneWorld("555-123-0000");
      p.surroundings.payment_request = { bill_id: "B2", amount_due: 32.5, paid: false };
      return p;
    })(),
  });
  const out = env.call("user", "make_payment", {});
  assert.equal(out.result, "Payment of 32.5 USD has been made for bill B2.");
  assert.deepEqual(out.record?.result, { bill_id: "B2", amount: 32.5 });
  assert.equal(phoneOf(env).surroundings.payment_request?.paid, true);
});
