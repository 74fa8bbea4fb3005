import { Injectable, NotFoundException } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';
import { isoMicros } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { LinkColumns, linkJson } from './link-json';
import { ListPosition } from '../database/list-order';
import { linkQuery, linksBatchQuery } from './links.sql';

// Rows per query while streaming the list: each query costs about 0.1 ms beyond its rows, and
// a batch is ~100 KB of JSON in memory per request in flight (issue 5: memory stays flat).
export const LINKS_BATCH_SIZE = 1000;

@Injectable()
export class LinksService {
  constructor(private readonly database: DatabaseReader) {}

  /**
   * The List Links response (CONTRACT §2) as JSON text, read in keyset batches and rendered
   * without a Date per value (link-json.ts). The whole body is built before anything is sent:
   * its ETag is computed over the exact body and goes out in the headers, and a database
   * failure on any batch is a clean 503 rather than a response cut short. The cost is memory
   * in proportion to the body (about 100 bytes a link) while the request is in flight.
   */
  async list(): Promise<string> {
    const chunks: string[] = [];
    for await (const chunk of this.listChunks()) chunks.push(chunk);
    return chunks.join('');
  }

  /** The JSON text of one link. */
  async findOne(id: string): Promise<string> {
    const { text, params } = linkQuery(id);
    const [row] = isStorableText(id) ? await this.database.query<LinkColumns[]>(text, params) : [];
    if (!row) throw new NotFoundException('No link has this id');
    return linkJson(row);
  }

  private async *listChunks(): AsyncGenerator<string> {
    yield '{"data":[';
    let batch = await this.batch();
    let total = 0;
    for (;;) {
      if (batch.length > 0) yield (total > 0 ? ',' : '') + batch.map(linkJson).join(',');
      total += batch.length;
      if (batch.length < LINKS_BATCH_SIZE) break;
      const last = batch[batch.length - 1];
      batch = await this.batch({ createdAt: isoMicros(last.createdAt), id: last.id });
    }
    yield `],"meta":{"total":${total}}}`;
  }

  private async batch(after?: ListPosition): Promise<LinkColumns[]> {
    const { text, params } = linksBatchQuery(LINKS_BATCH_SIZE, after);
    return this.database.query<LinkColumns[]>(text, params);
  }
}
