import assert from "node:assert/strict";
import { phoneWorld } from "./_testing.ts";
import { simulateNetworkSearch } from "./network_search.ts";
import { statusBar } from "./status_bar.ts";

Deno.test("statusBar() shows signal, network, data, Wi-Fi, VPN and battery", () => {
  const phone = phoneWorld();
  assert.equal(statusBar(phone), "📶³ Good | 5G | 📱 Data Enabled | 🔋 80%");
  simulateNetworkSearch(phone);
  phone.device.data_saver_mode = true;
  phone.device.wifi_enabled = true;
  phone.device.wifi_connected = true;
  phone.device.wifi_ssid = "Home";
  phone.device.vpn_connected = true;
  assert.equal(
    statusBar(phone),
    "📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 📡 Connected to Home | 🔒 VPN Connected | 🔋 80%",
  );
  phone.device.wifi_ssid = null;
  phone.device.data_enabled = false;
  assert.equal(
    statusBar(phone),
    "📶⁴ Excellent | 5G | 📵 Data Disabled | 📡 Enabled | 🔒 VPN Connected | 🔋 80%",
  );
});

Deno.test("statusBar() shows only airplane mode and battery when the radio is off", () => {
  const phone = phoneWorld();
  phone.device.airplane_mode = true;
  simulateNetworkSearch(phone);
  assert.equal(statusBar(phone), "✈️ Airplane Mode | 🔋 80%");
});

Deno.test("statusBar() reports data disabled when there is no network", () => {
  const phone = phoneWorld();
  phone.device.sim_card_missing = true;
  simulateNetworkSearch(phone);
  assert.equal(statusBar(phone), "📵 No Signal | 📵 Data Disabled | 🔋 80%");
});
