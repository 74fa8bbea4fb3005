import { Readable } from 'node:stream';
import { Injectable, NotFoundException } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';
import { isStorableText } from '../database/storable-text';
import { LinkPosition, linkQuery, LinksBatchRow, linksBatchQuery } from './links.sql';

// Rows per query while streaming the list: each query costs about 0.1 ms beyond its rows, and
// a batch is ~100 KB of JSON in memory per request in flight (issue 5: memory stays flat).
export const LINKS_BATCH_SIZE = 1000;

@Injectable()
export class LinksService {
  constructor(private readonly database: DatabaseReader) {}

  /**
   * The List Links response (CONTRACT §2) as a stream of JSON text, rendered by PostgreSQL in
   * keyset batches. The first batch is read before anything is sent, so a database outage is
   * still a clean 503; `total` counts the rows actually sent.
   */
  async list(): Promise<Readable> {
    const first = await this.batch();
    return Readable.from(this.listChunks(first));
  }

  /** The JSON text of one link, rendered by PostgreSQL. */
  async findOne(id: string): Promise<string> {
    const { text, params } = linkQuery(id);
    const [row] = isStorableText(id)
      ? await this.database.query<{ json: string }[]>(text, params)
      : [];
    if (!row) throw new NotFoundException('No link has this id');
    return row.json;
  }

  private async *listChunks(first: LinksBatchRow): AsyncGenerator<string> {
    yield '{"data":[';
    let batch = first;
    let total = 0;
    for (;;) {
      if (batch.rows > 0) yield (total > 0 ? ',' : '') + batch.json;
      total += batch.rows;
      if (batch.rows < LINKS_BATCH_SIZE) break;
      batch = await this.batch({ createdAt: batch.lastCreatedAt!, id: batch.lastId! });
    }
    yield `],"meta":{"total":${total}}}`;
  }

  private async batch(after?: LinkPosition): Promise<LinksBatchRow> {
    const { text, params } = linksBatchQuery(LINKS_BATCH_SIZE, after);
    const [row] = await this.database.query<LinksBatchRow[]>(text, params);
    return row;
  }
}
