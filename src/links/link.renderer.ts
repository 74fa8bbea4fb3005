import { isoMillis } from '../database/printed-timestamp';
import { ChunkedBody } from '../http/chunked-body';
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
 * The List Links body, each batch rendered to bytes as it arrives: only its bytes outlive the
 * batch, so a batch's rows and text die young instead of being held until the last batch is
 * read, and the body itself stays outside V8's heap (ChunkedBody). The whole body is made
 * before anything is sent: its ETag covers the exact body, and a database failure on any
 * batch is a clean 503 rather than a response cut short.
 */
export async function renderLinksList(batches: AsyncIterable<LinkRow[]>): Promise<ChunkedBody> {
  const body = new ChunkedBody();
  let total = 0;
  body.append('{"data":[');
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    body.append((total > 0 ? ',' : '') + batch.map(renderLink).join(','));
    total += batch.length;
  }
  body.append(`],"meta":{"total":${total}}}`);
  return body;
}
