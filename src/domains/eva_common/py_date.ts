/**
 * The date arithmetic the eva tools do with Python's `datetime`: `strptime` of
 * `YYYY-MM-DD`, adding days or hours, whole-day differences and `strftime`, all on
 * UTC calendar dates (the tools never read a clock).
 *
 * @module
 */

/** Python's `ValueError` text when `strptime(s, "%Y-%m-%d")` fails. */
export class PyValueError extends Error {}

const DAY_MS = 86_400_000;

/** `datetime.strptime(s, "%Y-%m-%d")` as ms since the epoch (UTC); throws as Python does. */
export function parseDate(s: unknown): number {
  const m = typeof s === "string" ? /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s) : null;
  if (!m) {
    throw new PyValueError(`time data ${pyQuote(String(s))} does not match format '%Y-%m-%d'`);
  }
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new PyValueError(
      mo < 1 || mo > 12
        ? `time data ${pyQuote(String(s))} does not match format '%Y-%m-%d'`
        : "day is out of range for month",
    );
  }
  return t;
}

function pyQuote(s: string): string {
  return s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s}'`;
}

/** `strftime("%Y-%m-%d")`. */
export function formatDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** `strftime("%Y-%m-%d %H:%M")`. */
export function formatDateTime(t: number): string {
  const iso = new Date(t).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** `t + timedelta(days=n)`. */
export function addDays(t: number, n: number): number {
  return t + n * DAY_MS;
}

/** `t + timedelta(hours=n)`. */
export function addHours(t: number, n: number): number {
  return t + n * 3_600_000;
}

/** `(a - b).days`: whole days, rounded down as Python's timedelta does. */
export function daysBetween(a: number, b: number): number {
  return Math.floor((a - b) / DAY_MS);
}

/** `date.weekday()`: Monday 0 ... Sunday 6. */
export function weekday(t: number): number {
  return (new Date(t).getUTCDay() + 6) % 7;
}
