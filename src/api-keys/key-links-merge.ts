import { keyLinks, LinkScope } from './link-scope';

export interface KeyLinksMerge {
  scope: LinkScope;
  /** The key's id, a bound parameter. */
  keyId: string;
  /** The table (read as `c`), and its columns to hand on, unqualified. */
  table: string;
  columns: string;
  /** The timestamp column that, then `id` in byte order, orders the rows. */
  orderedBy: string;
  /** The rows' own conditions besides their link (on `c`, or unqualified). */
  conditions: string[];
  /**
   * Whether the ordering index carries every column. When it does not, each read takes the
   * row's ctid too: no plan may then read a link whole from an index that carries them all
   * and sort it, which the planner can prefer when it cannot tell how many rows a read needs.
   */
  orderCovers: boolean;
  /** How many rows from the start: as a number, and as a bound parameter. */
  neededRows: number;
  needed: string;
}

/**
 * The rows read first from each link: its fair share of the page and one more, rounded up to
 * a power of two so that a prepared query's text takes few forms. Written into the text: a
 * plan made for an unknown limit could read whole links and sort them.
 */
export const firstRowsPerLink = (neededRows: number, links: number) =>
  2 ** Math.ceil(Math.log2(Math.ceil(neededRows / Math.max(links, 1)))) + 1;

/**
 * SQL of a subquery: the first `needed` rows, in order, of `table`'s rows of the key's links
 * that pass `conditions` (unordered: the caller orders and cuts). Each link's rows are read
 * from its index on `(link_id, orderedBy, id)` in order, a few at a time (firstRowsPerLink)
 * rather than a page a link. The first few rows of every link tell where the answer ends at
 * the latest (`cut`: the last row needed among those read; none when too few were read). Then
 * only a link whose rows so far all came before `cut` is read on, a few rows more each round,
 * until it passes `cut` or has given `needed` rows. A link's rows not read are past `cut`,
 * which is a row of the answer or later, or past the first `needed` of the link: every row of
 * the answer is read. A page costs an index descent per link, a few rows each and about a
 * page more, where reading a page from each link cost links × page rows.
 */
export function keyLinksMerge({
  scope,
  keyId,
  table,
  columns,
  orderedBy,
  conditions,
  neededRows,
  needed,
  orderCovers,
}: KeyLinksMerge): string {
  const share = firstRowsPerLink(neededRows, scope.links);
  const at = (row: string) => `(${row}.${orderedBy}, ${row}.id COLLATE "C")`;
  const inOrder = `ORDER BY c.${orderedBy}, c.id COLLATE "C"`;
  // Before `cut` (a row of `first`), or anywhere when there is none; the first term is the
  // index scan's bound, the second settles a shared timestamp.
  const beforeCut = (row: string) =>
    `${row}.${orderedBy} <= coalesce((SELECT ${orderedBy} FROM cut), 'infinity')
     AND (${at(row)} < (SELECT ${orderedBy}, id COLLATE "C" FROM cut)) IS NOT FALSE`;
  const fewRowsOf = (link: string, more: string[], heap: boolean) => `
    SELECT c.*, row_number() OVER (${inOrder}) AS n FROM (
      SELECT c.*${heap ? ', c.ctid AS row_at' : ''} FROM ${table} AS c
      WHERE ${[`c.link_id = ${link}.link_id`, ...conditions, ...more].join(' AND ')}
      ${inOrder} LIMIT ${share}
    ) AS c`;
  return `
    WITH RECURSIVE s AS MATERIALIZED (SELECT link_id FROM ${keyLinks(keyId)}),
    first AS MATERIALIZED (
      SELECT c.* FROM s CROSS JOIN LATERAL (${fewRowsOf('s', [], !orderCovers)}) AS c
    ),
    cut AS (SELECT * FROM first AS c ${inOrder} OFFSET ${needed} - 1 LIMIT 1),
    more AS (
      SELECT o.*, o.n AS k, false AS fresh FROM first AS o
      WHERE o.n = ${share} AND ${beforeCut('o')}
      UNION ALL
      SELECT c.*, o.k + c.n, true FROM more AS o CROSS JOIN LATERAL (
        ${fewRowsOf('o', [`${at('c')} > ${at('o')}`, beforeCut('c')], !orderCovers)}
      ) AS c
      WHERE o.n = ${share} AND o.k < ${needed}
    )
    SELECT ${columns} FROM first UNION ALL SELECT ${columns} FROM more WHERE fresh`;
}
