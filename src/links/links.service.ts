import { Readable } from 'node:stream';
import { Injectable, NotFoundException } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';
import { isoMicros } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { LinkColumns, linkJson } from './link.renderer';
import { ListPosition } from '../database/list-order';
import { linkQuery, linksBatchQuery } from './links.repository';

// Rows per query while streaming the list: each query costs about 0.1 ms beyond its rows, and
// a batch is ~100 KB of JSON in memory per request in flight (issue 5: memory stays flat).
export const LINKS_BATCH_SIZE = 1000;

@Injectable()
export class LinksService {
  constructor(private readonly database: DatabaseReader) {}

  /**
   * The List Links response (CONTRACT §2) as a stream of JSON text, read in keyset batches and
   * rendered without a Date per value (link-json.ts). The first batch is read before anything
   * is sent, so a database outage is still a clean 503; `total` counts the rows actually sent.
   */
  async list(): Promise<Readable> {
    const first = await this.batch();
    return Readable.from(this.listChunks(first));
  }

  /** The JSON text of one link. */
  async findOne(id: string): Promise<string> {
    const { text, params } = linkQuery(id);
    const [row] = isStorableText(id) ? await this.database.query<LinkColumns[]>(text, params) : [];
    if (!row) throw new NotFoundException('No link has this id');
    return linkJson(row);
  }

  private async *listChunks(first: LinkColumns[]): AsyncGenerator<string> {
    yield '{"data":[';
    let batch = first;
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
