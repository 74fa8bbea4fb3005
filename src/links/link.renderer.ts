import { isoMillis } from '../database/printed-timestamp';
import { LinkRow } from './links.repository';

// JSON.stringify of plain objects, which V8 writes straight into one string; the timestamps are
// sliced from PostgreSQL's text, with no Date per value (docs/performance.md).

/** A link as the API shows it: exactly the fields of docs/api.md, in this order. */
export function apiLink({ id, createdAt, updatedAt }: LinkRow) {
  return { id, createdAt: isoMillis(createdAt), updatedAt: isoMillis(updatedAt) };
}

/** One link's JSON text. */
export function renderLink(link: LinkRow): string {
  return JSON.stringify(apiLink(link));
}

/**
 * Where the rest of a List Links body starts: after `last` (none: at the first link), with
 * `total` links sent, or at nothing but its end once `isEnded`.
 */
export interface ListResume {
  last?: LinkRow;
  total: number;
  isEnded?: boolean;
}

/** A piece of the List Links body, and where the body goes on after it. */
export interface ListPiece {
  text: string;
  next: ListResume;
}

/**
 * The List Links body in pieces, one per batch, each made from its batch alone: a batch's rows
 * and text die young rather than being held until the last batch is read, and the body can be
 * sent while later batches are still being read. `from`: the body's rest only, after the pieces
 * up to it (its batches start after `from.last`).
 */
export async function* renderLinksList(
  batches: AsyncIterable<LinkRow[]>,
  from?: ListResume,
): AsyncGenerator<ListPiece> {
  let total = from?.total ?? 0;
  let last = from?.last;
  if (!from) yield { text: '{"data":[', next: { total } };
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const text = (total > 0 ? ',' : '') + batch.map(renderLink).join(',');
    total += batch.length;
    last = batch[batch.length - 1];
    yield { text, next: { last, total } };
  }
  yield { text: `],"meta":{"total":${total}}}`, next: { last, total, isEnded: true } };
}
