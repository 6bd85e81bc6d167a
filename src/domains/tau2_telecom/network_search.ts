/**
 * The phone's network search: what the radio connects to, derived from the SIM,
 * the mode preference, the signal at the caller's location, airplane mode, the APN
 * and whether the carrier keeps the line active. Toggles, init functions and the
 * cross-side sync all re-run it after changing an input.
 *
 * @module
 */
import type { NetworkTechnology, SignalStrength, SimStatus, TelecomUserDb } from "./data_model.ts";

/** The SIM as the phone reports it: a missing card hides the card's own status. */
export function simStatus(phone: TelecomUserDb): SimStatus {
  return phone.device.sim_card_missing ? "missing" : phone.device.sim_card_status;
}

/** Re-derives connection status, technology and signal in place. */
export function simulateNetworkSearch(phone: TelecomUserDb): void {
  const { device, surroundings } = phone;
  const signal = (tech: NetworkTechnology): SignalStrength =>
    surroundings.signal_strength[tech] ?? "none";
  const connect = (tech: NetworkTechnology) => {
    device.network_connection_status = "connected";
    device.network_technology_connected = tech;
    device.network_signal_strength = signal(tech);
  };

  if (simStatus(phone) === "active") {
    switch (device.network_mode_preference) {
      case "4g_5g_preferred":
        connect(signal("5G") === "none" ? "4G" : "5G");
        break;
      case "3g_only":
        connect("3G");
        break;
      case "2g_only":
        connect("2G");
        break;
      default: // 4g_only, and any unknown preference
        connect("4G");
    }
  } else {
    _noService(phone);
  }
  if (
    device.airplane_mode || device.active_apn_settings.apn_name === "broken" ||
    !surroundings.line_active
  ) {
    _noService(phone);
  }
}

function _noService({ device }: TelecomUserDb): void {
  device.network_connection_status = "no_service";
  device.network_technology_connected = "none";
  device.network_signal_strength = "none";
}
