import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { LinkRow, LinksRepository } from './links.repository';

// Rows per query while streaming the list: each query costs about 0.1 ms beyond its rows, and
// a batch is ~100 KB of JSON in memory per request in flight, so memory stays flat.
export const LINKS_BATCH_SIZE = 1000;

@Injectable()
export class LinksService {
  constructor(private readonly links: LinksRepository) {}

  /**
   * Every link in list order (docs/api.md, List Links), in keyset batches. The first batch is
   * read before this resolves, so a database outage is still a clean 503.
   */
  async list(): Promise<AsyncIterable<LinkRow[]>> {
    return this.batchesFrom(await this.links.batch(LINKS_BATCH_SIZE));
  }

  async findOne(id: string): Promise<LinkRow> {
    const link = await this.links.findById(id);
    if (!link) throw new NotFoundException('No link has this id');
    return link;
  }

  private async *batchesFrom(first: LinkRow[]): AsyncGenerator<LinkRow[]> {
    let batch = first;
    yield batch;
    while (batch.length === LINKS_BATCH_SIZE) {
      const last = batch[batch.length - 1];
      batch = await this.links.batch(LINKS_BATCH_SIZE, {
        createdAt: isoMicros(last.createdAt),
        id: last.id,
      });
      yield batch;
    }
  }
}
