/**
 * Date arithmetic on `YYYY-MM-DD` strings, in UTC so the machine's time zone never
 * moves a day.
 *
 * @module
 */

/** `iso` plus `days` days. */
export function addDays(iso: string, days: number): string {
  const d = _parse(iso);
  d.setUTCDate(d.getUTCDate() + days);
  return _format(d);
}

/** The first day of the month `months` months after the one holding `iso`. */
export function firstOfMonth(iso: string, months = 0): string {
  const d = _parse(iso);
  return _format(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1)));
}

/** The last day of the month `months` months after the one holding `iso`. */
export function lastOfMonth(iso: string, months = 0): string {
  return addDays(firstOfMonth(iso, months + 1), -1);
}

function _parse(iso: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) throw new Error(`not a date (YYYY-MM-DD): ${JSON.stringify(iso)}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

function _format(d: Date): string {
  const y = String(d.getUTCFullYear()).padStart(4, "0");
  const m = String(d.getUTCMonth() + 1).padStart(2, "0");
  const day = String(d.getUTCDate()).padStart(2, "0");
  return `${y}-${m}-${day}`;
}
