import { Readable } from 'node:stream';
import { isoMillis } from '../database/printed-timestamp';
import { LinkRow } from './links.repository';

// JSON text is written here rather than by JSON.stringify of objects: no Date per value, and
// the list streams (docs/performance.md). Exactly the fields of docs/api.md, in this order.

/** One link's JSON text. */
export function renderLink({ id, createdAt, updatedAt }: LinkRow): string {
  return `{"id":${JSON.stringify(id)},"createdAt":"${isoMillis(createdAt)}","updatedAt":"${isoMillis(updatedAt)}"}`;
}

/** The List Links body, streamed batch by batch; `total` counts the links actually sent. */
export function renderLinksList(batches: AsyncIterable<LinkRow[]>): Readable {
  return Readable.from(listChunks(batches));
}

async function* listChunks(batches: AsyncIterable<LinkRow[]>): AsyncGenerator<string> {
  yield '{"data":[';
  let total = 0;
  for await (const batch of batches) {
    if (batch.length > 0) yield (total > 0 ? ',' : '') + batch.map(renderLink).join(',');
    total += batch.length;
  }
  yield `],"meta":{"total":${total}}}`;
}
