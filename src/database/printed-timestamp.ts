/**
 * Timestamps as PostgreSQL prints them for the API: a JSON string in UTC, ISO 8601 whatever the
 * server's DateStyle — `"2026-01-02T03:04:05.123456"`, the fraction only as far as it is not
 * zero. Cheap to print (to_char costs PostgreSQL more than the rest of a list query), and turned
 * into the API's forms below by slicing: no Date per value.
 */
export const printedTimestamp = (column: string) => `to_json(${column} AT TIME ZONE 'UTC')::text`;

const FULL_LENGTH = '"2026-01-02T03:04:05.123456"'.length;
const PRINTED = /^"(\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?( BC)?"$/;

function withFraction(printed: string, digits: number): string {
  // The common case, all six digits printed: a slice. (`"0044-03-15T12:00:00.123 BC"` has the
  // same length: its 27th character is no digit.)
  if (printed.length === FULL_LENGTH && printed[20] === '.' && printed[26] <= '9') {
    return `${printed.slice(1, 21 + digits)}Z`;
  }
  const parts = PRINTED.exec(printed);
  // ±infinity has no such form: passed on as printed.
  if (!parts) return printed.slice(1, -1);
  // A date before year 1 keeps PostgreSQL's era, which it reads back: `0044-03-15T12:00:00.000Z BC`.
  const [, dateTime, fraction = '', era = ''] = parts;
  return `${dateTime}.${fraction.padEnd(6, '0').slice(0, digits)}Z${era}`;
}

/** The API's form (docs/api.md, Resources), like Date#toISOString: `2026-01-02T03:04:05.123Z` (cut, not rounded). */
export const isoMillis = (printed: string) => withFraction(printed, 3);

/** Full precision, where a cursor or a batch continues from: `2026-01-02T03:04:05.123456Z`. */
export const isoMicros = (printed: string) => withFraction(printed, 6);
