/**
 * The phone's status bar as the caller sees it: indicators joined by ` | `.
 * The exact text is part of the benchmark's tool results.
 *
 * @module
 */
import type { SignalStrength, TelecomUserDb } from "./data_model.ts";

const SIGNAL_TEXT: Record<SignalStrength, string> = {
  none: "📵 No Signal",
  poor: "📶¹ Poor",
  fair: "📶² Fair",
  good: "📶³ Good",
  excellent: "📶⁴ Excellent",
};

export function statusBar({ device }: TelecomUserDb): string {
  const parts: string[] = [];
  if (device.airplane_mode) {
    parts.push("✈️ Airplane Mode");
  } else {
    parts.push(SIGNAL_TEXT[device.network_signal_strength] ?? SIGNAL_TEXT.none);
    const tech = device.network_technology_connected;
    if (tech !== "none") parts.push(tech);
    if (device.data_enabled && tech !== "none") {
      parts.push("📱 Data Enabled");
      if (device.data_saver_mode) parts.push("🔽 Data Saver");
    } else {
      parts.push("📵 Data Disabled");
    }
  }
  if (device.wifi_enabled && device.wifi_connected) {
    parts.push(device.wifi_ssid ? `📡 Connected to ${device.wifi_ssid}` : "📡 Enabled");
  }
  if (device.vpn_connected) parts.push("🔒 VPN Connected");
  parts.push(`🔋 ${device.battery_level}%`);
  return parts.join(" | ");
}
