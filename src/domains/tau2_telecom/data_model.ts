/**
 * The two telecom worlds as zod schemas: the agent's records (plans, customers,
 * lines, bills, devices) and the caller's phone (device settings and surroundings).
 * Field defaults are the benchmark's model defaults, so `TelecomUserDbSchema.parse({})`
 * is the default phone every task starts from. Unknown fields are rejected, as the
 * benchmark's models do.
 *
 * Tools never parse a whole world per call (worlds are shared and frozen); they use
 * the inferred types over the live draft. The schemas validate data files and
 * build synthetic worlds in tests.
 *
 * @module
 */
import { z } from "zod";

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const IsoDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);

// ---------------------------------------------------------------------------
// Agent side
// ---------------------------------------------------------------------------

export const LINE_STATUSES = ["Active", "Suspended", "Pending Activation", "Closed"] as const;
export const BILL_STATUSES = [
  "Draft",
  "Issued",
  "Awaiting Payment",
  "Paid",
  "Overdue",
  "Disputed",
] as const;
export const ACCOUNT_STATUSES = ["Active", "Suspended", "Pending Verification", "Closed"] as const;
export const DEVICE_TYPES = ["phone", "router", "tablet", "watch", "other"] as const;
export const PAYMENT_METHOD_TYPES = ["Credit Card", "Debit Card", "PayPal"] as const;

export const PlanSchema = z.object({
  plan_id: z.string(),
  name: z.string(),
  data_limit_gb: z.number(),
  price_per_month: z.number(),
  data_refueling_price_per_gb: z.number(),
}).strict();

export const DeviceSchema = z.object({
  device_id: z.string(),
  device_type: z.enum(DEVICE_TYPES),
  model: z.string(),
  imei: z.string().nullable().default(null),
  is_esim_capable: z.boolean(),
  activated: z.boolean().default(false),
  activation_date: IsoDateTime.nullable().default(null),
  last_esim_transfer_date: IsoDateTime.nullable().default(null),
}).strict();

export const LineSchema = z.object({
  line_id: z.string(),
  phone_number: z.string(),
  status: z.enum(LINE_STATUSES).default("Pending Activation"),
  plan_id: z.string(),
  device_id: z.string().nullable().default(null),
  data_used_gb: z.number().default(0),
  data_refueling_gb: z.number().default(0),
  roaming_enabled: z.boolean().default(false),
  contract_end_date: IsoDate.nullable().default(null),
  last_plan_change_date: IsoDate.nullable().default(null),
  last_sim_replacement_date: IsoDate.nullable().default(null),
  suspension_start_date: IsoDate.nullable().default(null),
}).strict();

export const LineItemSchema = z.object({
  description: z.string(),
  amount: z.number(),
  date: IsoDate,
  item_type: z.string(),
}).strict();

export const BillSchema = z.object({
  bill_id: z.string(),
  customer_id: z.string(),
  period_start: IsoDate,
  period_end: IsoDate,
  issue_date: IsoDate,
  total_due: z.number(),
  due_date: IsoDate,
  line_items: z.array(LineItemSchema).default([]),
  status: z.enum(BILL_STATUSES).default("Draft"),
}).strict();

export const CustomerSchema = z.object({
  customer_id: z.string(),
  full_name: z.string(),
  date_of_birth: z.string(),
  email: z.string(),
  phone_number: z.string(),
  address: z.object({
    street: z.string(),
    city: z.string(),
    state: z.string(),
    zip_code: z.string(),
  }).strict(),
  account_status: z.enum(ACCOUNT_STATUSES).default("Pending Verification"),
  payment_methods: z.array(
    z.object({
      method_type: z.enum(PAYMENT_METHOD_TYPES),
      account_number_last_4: z.string(),
      expiration_date: z.string(),
    }).strict(),
  ).default([]),
  line_ids: z.array(z.string()).default([]),
  bill_ids: z.array(z.string()).default([]),
  created_at: IsoDateTime.default("2025-01-01T00:00:00"),
  last_extension_date: IsoDate.nullable().default(null),
  goodwill_credit_used_this_year: z.number().default(0),
}).strict();

/** The agent's database (`db.json`). */
export const TelecomDbSchema = z.object({
  plans: z.array(PlanSchema).default([]),
  customers: z.array(CustomerSchema).default([]),
  lines: z.array(LineSchema).default([]),
  bills: z.array(BillSchema).default([]),
  devices: z.array(DeviceSchema).default([]),
}).strict();

export type Plan = z.infer<typeof PlanSchema>;
export type Device = z.infer<typeof DeviceSchema>;
export type Line = z.infer<typeof LineSchema>;
export type LineItem = z.infer<typeof LineItemSchema>;
export type Bill = z.infer<typeof BillSchema>;
export type Customer = z.infer<typeof CustomerSchema>;
export type TelecomDb = z.infer<typeof TelecomDbSchema>;

// ---------------------------------------------------------------------------
// User side (the phone)
// ---------------------------------------------------------------------------

export const SIM_STATUSES = ["active", "missing", "locked_pin", "locked_puk"] as const;
export const NETWORK_TECHNOLOGIES = ["none", "2G", "3G", "4G", "5G"] as const;
export const NETWORK_MODE_PREFERENCES = [
  "4g_5g_preferred",
  "4g_only",
  "3g_only",
  "2g_only",
] as const;
export const SIGNAL_STRENGTHS = ["none", "poor", "fair", "good", "excellent"] as const;
export const PERFORMANCE_LEVELS = ["unknown", "poor", "fair", "good", "excellent"] as const;
export const NETWORK_STATUSES = ["connected", "searching", "no_service", "emergency_only"] as const;
export const APN_NAMES = ["internet", "broken"] as const;

export type SimStatus = (typeof SIM_STATUSES)[number];
export type NetworkTechnology = (typeof NETWORK_TECHNOLOGIES)[number];
export type NetworkModePreference = (typeof NETWORK_MODE_PREFERENCES)[number];
export type SignalStrength = (typeof SIGNAL_STRENGTHS)[number];
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

export const ApnSettingsSchema = z.object({
  apn_name: z.enum(APN_NAMES).default("internet"),
  reset_at_reboot: z.boolean().default(false),
  mms_apn: z.string().nullable().default("mms"),
  mmsc_url: z.string().nullable().default("http://mms.carrier.com/mms/wapenc"),
  mms_proxy: z.string().nullable().default(null),
  mms_port: z.int().nullable().default(null),
}).strict();

export const VpnDetailsSchema = z.object({
  server_address: z.string().nullable().default(null),
  protocol: z.string().nullable().default(null),
  server_performance: z.enum(PERFORMANCE_LEVELS).default("unknown"),
}).strict();

const PermissionsSchema = z.object({
  sms: z.boolean().default(false),
  storage: z.boolean().default(false),
  phone: z.boolean().default(false),
  network: z.boolean().default(false),
}).strict();

export const AppStatusSchema = z.object({
  app_name: z.string(),
  permissions: PermissionsSchema.default({
    sms: false,
    storage: false,
    phone: false,
    network: false,
  }),
}).strict();

export const PhoneDeviceSchema = z.object({
  sim_card_status: z.enum(SIM_STATUSES).default("active"),
  sim_card_missing: z.boolean().default(false),
  airplane_mode: z.boolean().default(false),
  network_signal_strength: z.enum(SIGNAL_STRENGTHS).default("good"),
  network_technology_connected: z.enum(NETWORK_TECHNOLOGIES).default("5G"),
  network_connection_status: z.enum(NETWORK_STATUSES).default("connected"),
  battery_level: z.int().default(80),
  data_enabled: z.boolean().default(true),
  roaming_enabled: z.boolean().default(false),
  network_mode_preference: z.enum(NETWORK_MODE_PREFERENCES).default("4g_5g_preferred"),
  active_apn_settings: ApnSettingsSchema.default(() => ApnSettingsSchema.parse({})),
  wifi_enabled: z.boolean().default(false),
  wifi_connected: z.boolean().default(false),
  wifi_ssid: z.string().nullable().default(null),
  wifi_signal_strength: z.enum(SIGNAL_STRENGTHS).default("none"),
  wifi_calling_enabled: z.boolean().default(false),
  wifi_calling_mms_over_wifi: z.boolean().default(false),
  data_saver_mode: z.boolean().default(false),
  vpn_enabled_setting: z.boolean().default(false),
  vpn_connected: z.boolean().default(false),
  vpn_details: VpnDetailsSchema.nullable().default(null),
  app_statuses: z.record(z.string(), AppStatusSchema).default(() => ({
    messaging: {
      app_name: "messaging",
      permissions: { sms: true, storage: true, phone: true, network: false },
    },
    browser: {
      app_name: "browser",
      permissions: { sms: false, storage: true, phone: false, network: true },
    },
  })),
}).strict();

export const PaymentRequestSchema = z.object({
  bill_id: z.string(),
  amount_due: z.number(),
  paid: z.boolean().default(false),
}).strict();

export const SurroundingsSchema = z.object({
  name: z.string().nullable().default(null),
  phone_number: z.string().nullable().default(null),
  is_abroad: z.boolean().default(false),
  roaming_allowed: z.boolean().default(false),
  signal_strength: z.partialRecord(z.enum(NETWORK_TECHNOLOGIES), z.enum(SIGNAL_STRENGTHS)).default(
    () => ({ "2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent" }) as const,
  ),
  mobile_data_usage_exceeded: z.boolean().default(false),
  line_active: z.boolean().default(true),
  payment_request: PaymentRequestSchema.nullable().default(null),
}).strict();

/** The caller's phone (`user_db.json`). */
export const TelecomUserDbSchema = z.object({
  device: PhoneDeviceSchema.default(() => PhoneDeviceSchema.parse({})),
  surroundings: SurroundingsSchema.default(() => SurroundingsSchema.parse({})),
}).strict();

export type ApnSettings = z.infer<typeof ApnSettingsSchema>;
export type VpnDetails = z.infer<typeof VpnDetailsSchema>;
export type AppStatus = z.infer<typeof AppStatusSchema>;
export type PhoneDevice = z.infer<typeof PhoneDeviceSchema>;
export type PaymentRequest = z.infer<typeof PaymentRequestSchema>;
export type Surroundings = z.infer<typeof SurroundingsSchema>;
export type TelecomUserDb = z.infer<typeof TelecomUserDbSchema>;

/** The APN settings a phone falls back to after a reset (the model defaults). */
export function defaultApnSettings(): ApnSettings {
  return ApnSettingsSchema.parse({});
}

/** What `connect_vpn` connects to. */
export function defaultVpnDetails(): VpnDetails {
  return { server_address: "192.168.1.1", protocol: "OpenVPN", server_performance: "excellent" };
}
