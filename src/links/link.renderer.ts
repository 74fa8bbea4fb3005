import { isoMillis } from '../database/printed-timestamp';
import { LinkRow } from './links.repository';

// JSON text is written here rather than by JSON.stringify of objects: no Date per value
// (docs/performance.md). Exactly the fields of docs/api.md, in this order.

/** One link's JSON text. */
export function renderLink({ id, createdAt, updatedAt }: LinkRow): string {
  return `{"id":${JSON.stringify(id)},"createdAt":"${isoMillis(createdAt)}","updatedAt":"${isoMillis(updatedAt)}"}`;
}

/**
 * The List Links body, each batch rendered as it arrives: only its text outlives the batch, so
 * a batch's rows die young instead of being held until the last batch is read. The whole body
 * is made before anything is sent: its ETag covers the exact body, and a database failure on
 * any batch is a clean 503 rather than a response cut short.
 */
export async function renderLinksList(batches: AsyncIterable<LinkRow[]>): Promise<string> {
  const parts: string[] = [];
  let total = 0;
  for await (const batch of batches) {
    if (batch.length > 0) parts.push(batch.map(renderLink).join(','));
    total += batch.length;
  }
  return `{"data":[${parts.join(',')}],"meta":{"total":${total}}}`;
}
