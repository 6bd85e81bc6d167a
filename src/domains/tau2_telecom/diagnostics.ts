/**
 * What the phone can do right now, derived from its state: mobile data, the speed
 * test and MMS. The user tools report these and the predicates assert them.
 *
 * @module
 */
import type { NetworkTechnology, SignalStrength, TelecomUserDb } from "./data_model.ts";
import { pyRound } from "./python_text.ts";

/** Whether mobile data works: radio on and connected, roaming allowed abroad, data on, quota left. */
export function mobileDataWorking({ device, surroundings }: TelecomUserDb): boolean {
  if (device.airplane_mode || device.network_signal_strength === "none") return false;
  if (device.network_connection_status === "no_service") return false;
  if (surroundings.is_abroad && (!device.roaming_enabled || !surroundings.roaming_allowed)) {
    return false;
  }
  if (!device.data_enabled) return false;
  return !surroundings.mobile_data_usage_exceeded;
}

export type SpeedLabel = "Very Poor" | "Poor" | "Fair" | "Good" | "Excellent";

/** The result of a speed test: no speed when data does not work. */
export type SpeedTest =
  | { speed: null; description: "No Connection" }
  | { speed: number; description: SpeedLabel };

const TECH_RANGE_MBPS: Record<NetworkTechnology, readonly [number, number]> = {
  "2G": [0.1, 0.4],
  "3G": [1, 5],
  "4G": [10, 100],
  "5G": [50, 500],
  none: [0, 0],
};

const SIGNAL_FACTOR: Record<SignalStrength, number> = {
  poor: 0.2,
  fair: 0.5,
  good: 0.8,
  excellent: 1,
  none: 0,
};

/**
 * The simulated download speed: the middle of the technology's range, scaled by
 * signal, by a slow VPN (x0.1) and by data saver (x0.2), rounded to 2 places.
 */
export function speedTest(phone: TelecomUserDb): SpeedTest {
  if (!mobileDataWorking(phone)) return { speed: null, description: "No Connection" };
  const { device } = phone;
  let factor = device.vpn_connected && device.vpn_details?.server_performance === "poor" ? 0.1 : 1;
  if (device.data_saver_mode) factor *= 0.2;
  const [min, max] = TECH_RANGE_MBPS[device.network_technology_connected] ?? [0, 0];
  const signal = SIGNAL_FACTOR[device.network_signal_strength] ?? 0;
  // Same operation order as the reference, so the float rounding agrees.
  const speed = pyRound((min + max) / 2 * signal * factor, 2);
  return { speed, description: _label(speed) };
}

function _label(speed: number): SpeedLabel {
  if (speed < 1) return "Very Poor";
  if (speed < 5) return "Poor";
  if (speed < 25) return "Fair";
  if (speed < 100) return "Good";
  return "Excellent";
}

/**
 * Whether the messaging app can send MMS: data works, better than 2G, not routed
 * over Wi-Fi calling, an MMSC set, and the app holds storage and SMS permissions.
 */
export function canSendMms(phone: TelecomUserDb): boolean {
  if (!mobileDataWorking(phone)) return false;
  const { device } = phone;
  if (device.network_technology_connected === "2G") return false;
  if (device.wifi_calling_enabled && device.wifi_calling_mms_over_wifi) return false;
  if (device.active_apn_settings.mmsc_url == null) return false;
  const messaging = device.app_statuses["messaging"];
  if (!messaging) return false;
  return Boolean(messaging.permissions.storage && messaging.permissions.sms);
}
