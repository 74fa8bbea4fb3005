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
 * The List Links body in pieces, one per batch, each made from its batch alone: a batch's rows
 * and text die young rather than being held until the last batch is read, and the body can be
 * sent while later batches are still being read.
 */
export async function* renderLinksList(batches: AsyncIterable<LinkRow[]>): AsyncGenerator<string> {
  let total = 0;
  yield '{"data":[';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield (total > 0 ? ',' : '') + batch.map(renderLink).join(',');
    total += batch.length;
  }
  yield `],"meta":{"total":${total}}}`;
}
