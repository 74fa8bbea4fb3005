import { Injectable } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';
import { columnOf, tableOf } from '../database/entity-columns';
import { afterPosition, LIST_ORDER, Position } from '../database/list-order';
import { printedTimestamp } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { Link } from './link.entity';
import { inKeyLinks, LinkScope } from '../api-keys/link-scope';

/** A link as read for the API: timestamps as PostgreSQL prints them (printedTimestamp). */
export interface LinkRow {
  id: string;
  createdAt: string;
  updatedAt: string;
}

const LINKS = tableOf(Link);
const column = (property: keyof Link & string) => columnOf(Link, property);
export const LINK_COLUMNS = `${column('id')} AS "id",
  ${printedTimestamp(column('createdAt'))} AS "createdAt",
  ${printedTimestamp(column('updatedAt'))} AS "updatedAt"`;

// A 64-bit hash of every column a link shows. The list's content is named by the number of
// rows and the XOR of their hashes (listContent): any insert, update or delete changes it.
const ROW_HASH = `hash_record_extended((${column('id')}, ${column('createdAt')}, ${column('updatedAt')}), 0)`;

/** Up to `size` links in list order, after `after` when given. */
export type LinksBatchReader = (size: number, after?: Position) => Promise<LinkRow[]>;

/** Reads the list within one snapshot: its content, then its links in batches. */
export interface LinksSnapshot {
  content(): Promise<string>;
  batch: LinksBatchReader;
}

/** What identifies a set of links: their number and the XOR of their ROW_HASHes. */
export const listContent = (count: number | string, xor: bigint | string) => `${count}:${xor}`;

// The texts of prepared statements are built once: each names its statement by a lookup.
const LINK_TEXT = `SELECT ${LINK_COLUMNS} FROM ${LINKS} WHERE ${column('id')} = $1`;
const LINKS_CONTENT_TEXT = `SELECT count(*)::text AS "count", coalesce(bit_xor(${ROW_HASH}), 0)::text AS "xor"
    FROM ${LINKS}`;

const SCOPED_LINK_TEXT = `${LINK_TEXT} AND ${inKeyLinks(`${LINKS}.${column('id')}`, '$2::uuid')}`;
// A scoped key's links: its few, in list order (a sort of them alone).
const SCOPED_LIST_TEXT = `SELECT ${LINK_COLUMNS} FROM ${LINKS}
  WHERE ${inKeyLinks(`${LINKS}.${column('id')}`, '$1::uuid')} ORDER BY ${LIST_ORDER}`;

export function linkQuery(id: string, scope?: LinkScope) {
  return scope
    ? { text: SCOPED_LINK_TEXT, params: [id, scope.keyId] }
    : { text: LINK_TEXT, params: [id] };
}

/** Every link of a link-scoped key, in list order. */
export const scopedListQuery = (scope: LinkScope) => ({
  text: SCOPED_LIST_TEXT,
  params: [scope.keyId],
});

/** Up to `size` links in list order, after `after` when given. */
export function linksBatchQuery(size: number, after?: Position) {
  const params: unknown[] = [size];
  let where = '';
  if (after) {
    params.push(after.timestamp, after.id);
    where = `WHERE ${afterPosition('$2::timestamptz', '$3::text')}`;
  }
  const text = `
    SELECT ${LINK_COLUMNS} FROM ${LINKS} ${where} ORDER BY ${LIST_ORDER} LIMIT $1::int`;
  return { text, params };
}

interface ContentRow {
  count: string;
  xor: string;
}

/** The content of the whole table, as listContent names it. */
export const linksContentQuery = () => ({ text: LINKS_CONTENT_TEXT, params: [] });

/** The links table: the only place its SQL is written. */
@Injectable()
export class LinksRepository {
  constructor(private readonly database: DatabaseReader) {}

  async findById(id: string, scope?: LinkScope): Promise<LinkRow | undefined> {
    // PostgreSQL text cannot hold NUL: such an id matches no row, and is not sent.
    if (!isStorableText(id)) return undefined;
    const { text, params } = linkQuery(id, scope);
    const [row] = await this.database.query<LinkRow[]>(text, params, { prepared: true });
    return row;
  }

  /** Every link a link-scoped key may see, in list order. */
  scopedList(scope: LinkScope): Promise<LinkRow[]> {
    const { text, params } = scopedListQuery(scope);
    return this.database.query<LinkRow[]>(text, params, { prepared: true });
  }

  /**
   * Runs `read` with reads that all see the table as of one moment, so they fit together: a
   * link whose createdAt changes between two batches is neither listed twice nor left out, and
   * the content read names exactly the links the batches hold.
   */
  inOneSnapshot<T>(read: (snapshot: LinksSnapshot) => Promise<T>): Promise<T> {
    return this.database.inSnapshot((query) =>
      read({
        content: async () => {
          const { text, params } = linksContentQuery();
          const [{ count, xor }] = await query<ContentRow[]>(text, params);
          return listContent(count, xor);
        },
        batch: (size, after) => {
          const { text, params } = linksBatchQuery(size, after);
          return query<LinkRow[]>(text, params);
        },
      }),
    );
  }

  /** The table's content now, as listContent names it. */
  async content(): Promise<string> {
    const { text, params } = linksContentQuery();
    const [{ count, xor }] = await this.database.query<ContentRow[]>(text, params, {
      prepared: true,
    });
    return listContent(count, xor);
  }
}
