/** A link's columns as PostgreSQL prints them: timestamps as JSON strings, in UTC. */
export interface LinkColumns {
  id: string;
  createdAt: string;
  updatedAt: string;
}

// `"2026-01-02T03:04:05.123456"` (to_json of a UTC timestamp: ISO whatever the DateStyle), the
// fraction printed only as far as it is not zero.
const PRINTED_TIMESTAMP = /^"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?"$/;

/**
 * CONTRACT §1's timestamp (`2026-01-02T03:04:05.123Z`, like Date#toISOString) from the printed
 * one, by string slicing: no Date per value. The fraction is cut to milliseconds, as PostgreSQL's
 * to_char(… 'MS') does for the clients. A timestamp outside years 0000–9999 has no such form
 * and is passed on as printed.
 */
export function isoMillis(printed: string): string {
  // The common case, all six fraction digits printed: a slice.
  if (printed.length === 28 && printed[20] === '.') return `${printed.slice(1, 24)}Z`;
  const parts = PRINTED_TIMESTAMP.exec(printed);
  if (!parts) return printed.slice(1, -1);
  const [, dateTime, fraction = ''] = parts;
  return `${dateTime}.${fraction.slice(0, 3).padEnd(3, '0')}Z`;
}

/** One link's JSON text (CONTRACT §1: exactly these fields, in this order). */
export function linkJson({ id, createdAt, updatedAt }: LinkColumns): string {
  return `{"id":${JSON.stringify(id)},"createdAt":"${isoMillis(createdAt)}","updatedAt":"${isoMillis(updatedAt)}"}`;
}
