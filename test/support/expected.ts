import { isoMillis } from '../../src/database/printed-timestamp';
import { ClientRow, LinkRow } from './fixtures';

// PostgreSQL keeps microseconds; Date.parse stops at milliseconds.
function microseconds(iso: string): number {
  const fraction = /\.\d{3}(\d{1,3})/.exec(iso)?.[1] ?? '';
  return Date.parse(iso) * 1000 + Number(fraction.padEnd(3, '0'));
}

// The contract's order: createdAt, then id by byte order (COLLATE "C"), both ascending.
export function byCreatedAtThenId<T extends { id: string; createdAt?: string }>(
  a: T,
  b: T,
): number {
  const time = microseconds(a.createdAt as string) - microseconds(b.createdAt as string);
  return time !== 0 ? time : Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

export const asLinkJson = (link: LinkRow) => ({
  id: link.id,
  createdAt: new Date(link.createdAt as string).toISOString(),
  updatedAt: new Date(link.updatedAt as string).toISOString(),
});

export const asClientJson = (client: ClientRow) => ({
  id: client.id,
  linkId: client.linkId,
  isDeleted: client.isDeleted ?? false,
  status: client.status,
  createdAt: new Date(client.createdAt as string).toISOString(),
  updatedAt: new Date(client.updatedAt as string).toISOString(),
});

/**
 * The clients table read straight from the database and printed as the API prints it: the
 * select list (`PRINTED_CLIENT_COLUMNS`, timestamps to the microsecond) and each row's JSON.
 */
const printedUtc = (column: string) => `to_json(${column} AT TIME ZONE 'UTC')::text`;
export const PRINTED_CLIENT_COLUMNS = `id, link_id, is_deleted, status, ${printedUtc('created_at')} AS c, ${printedUtc('updated_at')} AS u`;
export const PRINTED_LINK_COLUMNS = `id, ${printedUtc('created_at')} AS c, ${printedUtc('updated_at')} AS u`;

export const clientRowAsJson = (row: Record<string, string>) => ({
  id: row.id,
  linkId: row.link_id,
  isDeleted: row.is_deleted,
  status: row.status,
  createdAt: isoMillis(row.c),
  updatedAt: isoMillis(row.u),
});

export const linkRowAsJson = (row: Record<string, string>) => ({
  id: row.id,
  createdAt: isoMillis(row.c),
  updatedAt: isoMillis(row.u),
});
