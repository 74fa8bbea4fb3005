/**
 * Instants as PostgreSQL takes them: the one place that knows which dates and times exist and
 * which PostgreSQL can hold, so that none it refuses reaches it (a refusal there would be a 500).
 */

// An instant as given in a query: RFC 3339 (`2026-01-31T12:00:00Z`, `…T12:00:00.5+02:00`).
const RFC_3339 =
  /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(?:[Zz]|[+-](\d\d):(\d\d))$/;
// An instant as the API prints it in a cursor (isoMicros): UTC to the microsecond, BC marked,
// and the endless ones (-infinity is also the start of a change feed, before any row).
const PRINTED = /^(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{6}Z( BC)?$/;
const ENDLESS = new Set(['infinity', '-infinity']);
// PostgreSQL takes UTC offsets up to 15:59 either way.
const MAX_OFFSET_HOURS = 15;

/** A day of the proleptic Gregorian calendar that PostgreSQL holds: 4714-11-24 BC to 294276 AD. */
function isStorableDay(year: number, month: number, day: number, isBc: boolean): boolean {
  // Leap years counted where 1 BC is year 0.
  const astronomical = isBc ? 1 - year : year;
  const isLeap = astronomical % 4 === 0 && (astronomical % 100 !== 0 || astronomical % 400 === 0);
  const daysInMonth = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const inRange = isBc
    ? year < 4714 || (year === 4714 && (month > 11 || (month === 11 && day >= 24)))
    : year <= 294276;
  return year > 0 && inRange && daysInMonth !== undefined && day >= 1 && day <= daysInMonth;
}

const isTimeOfDay = (hours: number, minutes: number, seconds: number) =>
  hours < 24 && minutes < 60 && seconds < 60;

/** An RFC 3339 date-time that names a real instant PostgreSQL can hold (years 0001–9999). */
export function isRfc3339Instant(text: string): boolean {
  const parts = RFC_3339.exec(text);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1, 7).map(Number);
  const [offsetHours = 0, offsetMinutes = 0] = parts.slice(7, 9).filter(Boolean).map(Number);
  return (
    isStorableDay(year, month, day, false) &&
    isTimeOfDay(hours, minutes, seconds) &&
    offsetHours <= MAX_OFFSET_HOURS &&
    offsetMinutes < 60
  );
}

/** An instant in the form the API prints in its cursors, that PostgreSQL can hold. */
export function isPrintedInstant(text: string): boolean {
  if (ENDLESS.has(text)) return true;
  const parts = PRINTED.exec(text);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1, 7).map(Number);
  return (
    isStorableDay(year, month, day, parts[7] !== undefined) && isTimeOfDay(hours, minutes, seconds)
  );
}
