/**
 * The caller's 30 phone tools (tau2 dual control): 15 checks that read the phone
 * and 15 actions that change it. They operate on the user's database; in the
 * Environment a user tool's `ctx.db` is that database.
 *
 * Result texts are the reference's, byte for byte (the status bar, "Mobile Data is
 * now ON.", ...). Actions that change a radio setting re-run the network search
 * and end with the status bar. An action that cannot apply (Wi-Fi in airplane mode,
 * an unknown network mode, nothing to pay) answers in text and records nothing.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef, ToolOutcome } from "../domain.ts";
import {
  ApnSettingsSchema,
  defaultApnSettings,
  defaultVpnDetails,
  NETWORK_MODE_PREFERENCES,
  type NetworkModePreference,
  type TelecomUserDb,
} from "./data_model.ts";
import { canSendMms, speedTest } from "./diagnostics.ts";
import { simStatus, simulateNetworkSearch } from "./network_search.ts";
import { pyFixed, pyFloat, pyRepr } from "./python_text.ts";
import { statusBar } from "./status_bar.ts";
import { actionRecord, done, telecomTool, type TelecomToolSpec } from "./tool_kit.ts";
import { validationDetails } from "./validation_error.ts";

const noArgs = z.object({}).strict();
const onOff = (on: boolean) => on ? "ON" : "OFF";
const withBar = (text: string, phone: TelecomUserDb) => `${text}\nStatus Bar: ${statusBar(phone)}`;

function userTool<A>(spec: Omit<TelecomToolSpec<A, TelecomUserDb>, "side">): ToolDef<A> {
  return telecomTool<A, TelecomUserDb>({ ...spec, side: "user" });
}

/** A check that takes no arguments and answers in text. */
function check(
  name: string,
  description: string,
  read: (phone: TelecomUserDb) => string,
): ToolDef<Record<string, never>> {
  return userTool({ name, kind: "read", description, args: noArgs, run: (_, p) => done(read(p)) });
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

const SPEED_ADVICE: Record<string, string> = {
  "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
  "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
  "Fair": "Connection is okay for web browsing and some standard definition streaming.",
  "Good": "Connection is good for most activities, including HD streaming.",
  "Excellent": "Connection is very fast.",
};

const SIM_TEXT: Record<string, string> = {
  active: "Your SIM card is active and working.",
  missing: "No SIM card detected in the phone.",
  locked_pin: "The SIM card is locked with a PIN code.",
  locked_puk: "The SIM card is locked with a PUK code.",
};

function _grantedPermissions(permissions: Record<string, boolean>): string[] {
  return Object.entries(permissions).filter(([, granted]) => granted)
    .map(([perm]) => perm.replaceAll("_", " ").toLowerCase());
}

const appName = z.string().describe("The app's name, such as 'messaging'.");

export const userChecks: readonly ToolDef[] = [
  check(
    "check_status_bar",
    "Show the icons in the phone's status bar: signal, network type, mobile data and data saver, Wi-Fi, VPN and battery.",
    (p) => `Status Bar: ${statusBar(p)}`,
  ),
  check(
    "run_speed_test",
    "Measure the phone's current download speed and say what it is good for.",
    (p) => {
      const t = speedTest(p);
      if (t.speed === null) return `Speed test failed: ${t.description}.`;
      return `Speed Test Result: ${pyFixed(t.speed, 2)} Mbps (${t.description}). ${
        SPEED_ADVICE[t.description] ?? ""
      }`;
    },
  ),
  check(
    "check_network_status",
    "Show the phone's cellular and Wi-Fi connection: airplane mode, SIM, signal, network type, mobile data and roaming settings.",
    (p) => {
      const d = p.device;
      const lines = [
        `Airplane Mode: ${onOff(d.airplane_mode)}`,
        `SIM Card Status: ${simStatus(p)}`,
        `Cellular Connection: ${d.network_connection_status}`,
        `Cellular Signal: ${d.network_signal_strength}`,
        `Cellular Network Type: ${d.network_technology_connected}`,
        `Mobile Data Enabled: ${d.data_enabled ? "Yes" : "No"}`,
        `Data Roaming Enabled: ${d.roaming_enabled ? "Yes" : "No"}`,
        `Wi-Fi Radio: ${onOff(d.wifi_enabled)}`,
        `Wi-Fi Connected: ${d.wifi_connected ? "Yes" : "No"}`,
      ];
      if (d.wifi_connected) lines.push(`Connected Wi-Fi Network: ${d.wifi_ssid ?? "None"}`);
      return lines.join("\n");
    },
  ),
  check(
    "check_network_mode_preference",
    "Show which network types the phone prefers (5G, 4G, 3G, 2G).",
    (p) => `Network Mode Preference: ${p.device.network_mode_preference}`,
  ),
  check(
    "check_sim_status",
    "Show whether the SIM card works, is missing, or is locked by a PIN or PUK.",
    (p) => {
      const status = simStatus(p);
      return SIM_TEXT[status] ?? `Unknown SIM status: ${status}`;
    },
  ),
  check(
    "check_data_restriction_status",
    "Show whether a data-limiting feature (Data Saver) is on.",
    (p) =>
      p.device.data_saver_mode
        ? "Data Saver mode is ON (limits data usage)."
        : "Data Saver mode is OFF.",
  ),
  check(
    "check_apn_settings",
    "Show the phone's APN settings for mobile data: the APN name and the MMSC URL used for picture messages.",
    (p) => {
      const apn = p.device.active_apn_settings;
      return `Current APN Name: ${apn.apn_name || "Not Set"}\n` +
        `MMSC URL (for picture messages): ${apn.mmsc_url || "Not Set"}\n` +
        "(These are technical settings, usually best left unchanged.)";
    },
  ),
  check(
    "check_wifi_status",
    "Show whether Wi-Fi is on, which network it is connected to, and its signal.",
    ({ device: d }) => {
      if (!d.wifi_enabled) return "Wi-Fi is turned OFF.";
      if (d.wifi_connected) {
        return `Wi-Fi is ON and connected to '${
          d.wifi_ssid ?? "None"
        }'. Signal strength: ${d.wifi_signal_strength}.`;
      }
      return "Wi-Fi is ON but not connected to any network.";
    },
  ),
  check(
    "check_wifi_calling_status",
    "Show whether Wi-Fi Calling (calls over Wi-Fi instead of the cellular network) is on.",
    (p) => `Wi-Fi Calling is currently turned ${onOff(p.device.wifi_calling_enabled)}.`,
  ),
  check(
    "check_vpn_status",
    "Show whether a VPN is set up and connected, with its connection details.",
    ({ device: d }) => {
      if (d.vpn_connected) {
        return d.vpn_details && Object.keys(d.vpn_details).length > 0
          ? `VPN is ON and connected. Details: ${pyRepr(d.vpn_details)}`
          : "VPN is ON and connected (no specific details available).";
      }
      if (d.vpn_enabled_setting) {
        return "VPN is turned ON in settings, but currently not connected.";
      }
      return "VPN is turned OFF.";
    },
  ),
  check(
    "check_installed_apps",
    "List the apps installed on the phone.",
    (p) =>
      `The following apps are installed on the phone: ${
        Object.keys(p.device.app_statuses).join(", ")
      }`,
  ),
  userTool({
    name: "check_app_status",
    kind: "read",
    description: "Show one app's details, including the permissions it holds.",
    args: z.object({ app_name: appName }).strict(),
    run({ app_name }, p) {
      const app = Object.hasOwn(p.device.app_statuses, app_name)
        ? p.device.app_statuses[app_name]
        : undefined;
      if (!app) return done(`App '${app_name}' not found on this phone.`);
      const granted = _grantedPermissions(app.permissions);
      const lines = [`Status for App: ${app_name}`];
      if (granted.length === 0) lines.push(" - Permissions: None granted.");
      else lines.push(" - Permissions Granted:", ...granted.map((g) => `   - ${g}`));
      return done(lines.join("\n"));
    },
  }),
  userTool({
    name: "check_app_permissions",
    kind: "read",
    description: "Show which permissions (storage, SMS, phone, network, ...) an app holds.",
    args: z.object({ app_name: appName }).strict(),
    run({ app_name }, p) {
      const app = Object.hasOwn(p.device.app_statuses, app_name)
        ? p.device.app_statuses[app_name]
        : undefined;
      if (!app) return done(`App '${app_name}' not found on this phone.`);
      const granted = _grantedPermissions(app.permissions);
      if (granted.length === 0) {
        return done(`App '${app_name}' currently has no permissions granted.`);
      }
      return done(`App '${app_name}' has permission for: ${granted.join(", ")}.`);
    },
  }),
  check(
    "can_send_mms",
    "Check whether the messaging app can send MMS (picture) messages.",
    (p) =>
      canSendMms(p)
        ? "Your messaging app can send MMS messages."
        : "Your messaging app cannot send MMS messages.",
  ),
  check(
    "check_payment_request",
    "Check whether the agent has sent a payment request.",
    (p) => {
      const request = p.surroundings.payment_request;
      if (!request) return "No payment request has been made.";
      return `You have a payment request for bill ${request.bill_id} of ${
        pyFloat(request.amount_due)
      } USD.`;
    },
  ),
];

// ---------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------

/** An action without arguments that always applies and is always recorded. */
function action(
  name: string,
  description: string,
  apply: (phone: TelecomUserDb) => { text: string; result: Record<string, unknown> },
): ToolDef<Record<string, never>> {
  return userTool({
    name,
    kind: "write",
    description,
    args: noArgs,
    run(_, phone): ToolOutcome {
      const { text, result } = apply(phone);
      return done(text, actionRecord(name, {}, result));
    },
  });
}

function _disconnectWifi({ device }: TelecomUserDb): void {
  device.wifi_connected = false;
  device.wifi_ssid = null;
  device.wifi_signal_strength = "none";
}

function _disconnectVpn({ device }: TelecomUserDb): boolean {
  if (!device.vpn_connected) return false;
  device.vpn_connected = false;
  device.vpn_details = null;
  return true;
}

/** Flips airplane mode as the phone does; returns the new state. */
export function toggleAirplaneMode(phone: TelecomUserDb): boolean {
  const { device } = phone;
  const wasOn = device.airplane_mode;
  device.airplane_mode = !wasOn;
  if (wasOn) {
    device.network_connection_status = "searching";
    if (device.wifi_enabled) _disconnectWifi(phone);
  } else {
    _disconnectWifi(phone);
    _disconnectVpn(phone);
  }
  simulateNetworkSearch(phone);
  return device.airplane_mode;
}

export const userActions: readonly ToolDef[] = [
  action(
    "toggle_data",
    "Turn mobile data on or off (cellular internet when Wi-Fi is unavailable). Returns the new state.",
    (p) => {
      const on = !p.device.data_enabled;
      p.device.data_enabled = on;
      simulateNetworkSearch(p);
      return { text: withBar(`Mobile Data is now ${onOff(on)}.`, p), result: { data_enabled: on } };
    },
  ),
  action(
    "toggle_airplane_mode",
    "Turn airplane mode on or off. On cuts every radio: cellular, Wi-Fi and Bluetooth. Returns the new state.",
    (p) => {
      const on = toggleAirplaneMode(p);
      return {
        text: withBar(`Airplane Mode is now ${onOff(on)}.`, p),
        result: { airplane_mode: on },
      };
    },
  ),
  action(
    "toggle_roaming",
    "Turn data roaming on or off (data on networks outside the carrier's coverage, such as abroad). Returns the new state.",
    (p) => {
      const on = !p.device.roaming_enabled;
      p.device.roaming_enabled = on;
      simulateNetworkSearch(p);
      return {
        text: withBar(`Data Roaming is now ${onOff(on)}.`, p),
        result: { roaming_enabled: on },
      };
    },
  ),
  action(
    "toggle_data_saver_mode",
    "Turn Data Saver on or off; on uses less data and may slow it down. Returns the new state.",
    (p) => {
      const on = !p.device.data_saver_mode;
      p.device.data_saver_mode = on;
      return {
        text: withBar(`Data Saver Mode is now ${onOff(on)}.`, p),
        result: { data_saver_mode: on },
      };
    },
  ),
  userTool({
    name: "toggle_wifi",
    kind: "write",
    description: "Turn the Wi-Fi radio on or off. Returns the new state.",
    args: noArgs,
    run(_, p) {
      if (p.device.airplane_mode) {
        return done(withBar("Cannot change Wi-Fi settings while Airplane Mode is ON.", p));
      }
      const on = !p.device.wifi_enabled;
      p.device.wifi_enabled = on;
      if (!on) _disconnectWifi(p);
      return done(
        withBar(`Wi-Fi is now ${onOff(on)}.`, p),
        actionRecord("toggle_wifi", {}, { wifi_enabled: on }),
      );
    },
  }),
  action(
    "toggle_wifi_calling",
    "Turn Wi-Fi Calling on or off (calls over Wi-Fi instead of the cellular network, useful where the signal is weak). Returns the new state.",
    (p) => {
      const on = !p.device.wifi_calling_enabled;
      p.device.wifi_calling_enabled = on;
      return {
        text: withBar(`Wi-Fi Calling is now ${onOff(on)}.`, p),
        result: { wifi_calling_enabled: on },
      };
    },
  ),
  userTool({
    name: "set_network_mode_preference",
    kind: "write",
    description:
      "Choose which network types the phone prefers. Faster networks (4G/5G) use more battery.",
    args: z.object({
      mode: z.string().describe("One of '4g_5g_preferred', '4g_only', '3g_only', '2g_only'."),
    }).strict(),
    run({ mode }, p) {
      if (!(NETWORK_MODE_PREFERENCES as readonly string[]).includes(mode)) {
        return done(
          `Failed to set network mode: '${mode}' is not a valid option. Please use one of: ${
            NETWORK_MODE_PREFERENCES.join(", ")
          }\nStatus Bar: ${statusBar(p)}`,
        );
      }
      p.device.network_mode_preference = mode as NetworkModePreference;
      simulateNetworkSearch(p);
      return done(
        withBar(`Preferred Network Mode set to: ${mode}`, p),
        actionRecord("set_network_mode_preference", { mode }, { network_mode_preference: mode }),
      );
    },
  }),
  action(
    "reseat_sim_card",
    "Take the SIM card out and put it back in; this can fix a SIM that is not recognised.",
    (p) => {
      p.device.sim_card_missing = false;
      simulateNetworkSearch(p);
      return {
        text: withBar("SIM card re-seated successfully.", p),
        result: { sim_card_missing: false },
      };
    },
  ),
  userTool({
    name: "set_apn_settings",
    kind: "write",
    description: "Set the phone's APN settings.",
    args: z.object({
      apn_settings: z.record(z.string(), z.unknown()).describe(
        "APN settings: apn_name ('internet'), reset_at_reboot (boolean), mms_apn, mmsc_url, mms_proxy (strings or null), mms_port (integer or null).",
      ),
    }).strict(),
    run({ apn_settings }, p) {
      const parsed = ApnSettingsSchema.safeParse(apn_settings);
      if (!parsed.success) {
        return {
          ok: false,
          result: {
            status: "error",
            error_type: "validation_error",
            message: "Tool arguments failed validation.",
            details: validationDetails(parsed.error, apn_settings),
          },
        };
      }
      p.device.active_apn_settings = parsed.data;
      simulateNetworkSearch(p);
      return done(
        withBar(`APN settings set to: ${parsed.data.apn_name}`, p),
        actionRecord("set_apn_settings", { apn_settings }, { ...parsed.data }),
      );
    },
  }),
  action(
    "reset_apn_settings",
    "Reset the APN settings to the defaults (applied at the next reboot).",
    (p) => {
      p.device.active_apn_settings.reset_at_reboot = true;
      simulateNetworkSearch(p);
      return {
        text: withBar("APN settings will reset at reboot.", p),
        result: { reset_at_reboot: true },
      };
    },
  ),
  userTool({
    name: "connect_vpn",
    kind: "write",
    description: "Connect the phone's VPN.",
    args: noArgs,
    run(_, p) {
      if (p.device.vpn_connected) return done("VPN already connected.");
      p.device.vpn_connected = true;
      p.device.vpn_details = defaultVpnDetails();
      return done(
        withBar("VPN connected successfully.", p),
        actionRecord("connect_vpn", {}, { vpn_connected: true }),
      );
    },
  }),
  userTool({
    name: "disconnect_vpn",
    kind: "write",
    description:
      "Disconnect the VPN, so traffic no longer goes through a VPN server (this can change speed).",
    args: noArgs,
    run(_, p) {
      if (!_disconnectVpn(p)) return done(withBar("No active VPN connection to disconnect.", p));
      return done(
        withBar("VPN disconnected successfully.", p),
        actionRecord("disconnect_vpn", {}, { vpn_connected: false }),
      );
    },
  }),
  userTool({
    name: "grant_app_permission",
    kind: "write",
    description: "Give an app a permission it needs, such as storage or SMS.",
    args: z.object({
      app_name: appName,
      permission: z.string().describe(
        "The permission, lower case: 'storage', 'sms', 'phone', 'network'.",
      ),
    }).strict(),
    run({ app_name, permission }, p) {
      const app = Object.hasOwn(p.device.app_statuses, app_name)
        ? p.device.app_statuses[app_name]
        : undefined;
      if (!app) {
        return done(withBar(`Error. App '${app_name}' not found. Cannot grant permission.`, p));
      }
      const key = permission.toLowerCase();
      const permissions = app.permissions as Record<string, boolean>;
      if (!Object.hasOwn(permissions, key)) {
        return done(withBar(
          `Error. Permission '${key}' not tracked for app '${app_name}', available permissions: ${
            pyRepr(Object.keys(permissions))
          }`,
          p,
        ));
      }
      permissions[key] = true;
      return done(
        withBar(`Success. Permission '${key}' granted to app '${app_name}'.`, p),
        actionRecord("grant_app_permission", { app_name, permission }, { granted: true }),
      );
    },
  }),
  action(
    "reboot_device",
    "Restart the phone; this clears many temporary glitches by restarting every service and connection.",
    (p) => {
      const lines: string[] = [];
      if (p.device.active_apn_settings.reset_at_reboot) {
        lines.push("Resetting APN settings...");
        p.device.active_apn_settings = defaultApnSettings();
      }
      lines.push("Restarting network services...");
      p.device.network_connection_status = "searching";
      simulateNetworkSearch(p);
      return { text: withBar(lines.join("\n"), p), result: { rebooted: true } };
    },
  ),
  userTool({
    name: "make_payment",
    kind: "write",
    description: "Pay the bill the agent sent a payment request for.",
    args: noArgs,
    run(_, p) {
      const request = p.surroundings.payment_request;
      if (!request) return done("You do not have a payment request.");
      request.paid = true;
      return done(
        `Payment of ${pyFloat(request.amount_due)} USD has been made for bill ${request.bill_id}.`,
        actionRecord("make_payment", {}, { bill_id: request.bill_id, amount: request.amount_due }),
      );
    },
  }),
];

/** The caller's tools: checks, then actions. */
export const userTools: readonly ToolDef[] = [...userChecks, ...userActions];
