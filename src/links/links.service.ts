import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { LINK_NOT_FOUND } from '../http/error-texts';
import { LinkRow, LinksRepository } from './links.repository';

// Rows per query: each query costs about 0.1 ms beyond its rows.
export const LINKS_BATCH_SIZE = 1000;

@Injectable()
export class LinksService {
  constructor(private readonly links: LinksRepository) {}

  /**
   * Every link in list order (docs/api.md, Endpoints), in keyset batches: each batch is read
   * once the previous one has been consumed, so its rows can be dropped before the next
   * arrives.
   */
  async *batches(): AsyncGenerator<LinkRow[]> {
    let batch = await this.links.batch(LINKS_BATCH_SIZE);
    yield batch;
    while (batch.length === LINKS_BATCH_SIZE) {
      const last = batch[batch.length - 1];
      const after = { createdAt: isoMicros(last.createdAt), id: last.id };
      batch = await this.links.batch(LINKS_BATCH_SIZE, after);
      yield batch;
    }
  }

  async findOne(id: string): Promise<LinkRow> {
    const link = await this.links.findById(id);
    if (!link) throw new NotFoundException(LINK_NOT_FOUND);
    return link;
  }
}
