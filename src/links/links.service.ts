import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { LINK_NOT_FOUND } from '../http/error-texts';
import { PrecompressedBody } from '../http/precompressed-body';
import { renderLinksList } from './link.renderer';
import {
  LinkRow,
  LinksBatchReader,
  LinksRepository,
  listContent,
  ListedLinkRow,
} from './links.repository';
import { RenderedList, RenderedListCache } from './rendered-list.cache';

// Rows per query: each query costs about 0.1 ms beyond its rows.
export const LINKS_BATCH_SIZE = 1000;

// The largest List Links body kept for the next request (about 85,000 links of short ids).
export const KEPT_LIST_MAX_BYTES = 8 * 1024 * 1024;

@Injectable()
export class LinksService {
  private readonly list = new RenderedListCache(
    () => this.links.content(),
    () => this.render(),
    KEPT_LIST_MAX_BYTES,
  );

  constructor(private readonly links: LinksRepository) {}

  /** The List Links answer, as of a moment after the call (RenderedListCache). */
  listAll(): Promise<RenderedList> {
    return this.list.get();
  }

  /**
   * Every link in list order (docs/api.md, Endpoints), in keyset batches read by `read`: each
   * batch is read once the previous one has been consumed, so its rows can be dropped before
   * the next arrives.
   */
  async *batches(read: LinksBatchReader): AsyncGenerator<ListedLinkRow[]> {
    let batch = await read(LINKS_BATCH_SIZE);
    yield batch;
    while (batch.length === LINKS_BATCH_SIZE) {
      const last = batch[batch.length - 1];
      const after = { timestamp: isoMicros(last.createdAt), id: last.id };
      batch = await read(LINKS_BATCH_SIZE, after);
      yield batch;
    }
  }

  async findOne(id: string): Promise<LinkRow> {
    const link = await this.links.findById(id);
    if (!link) throw new NotFoundException(LINK_NOT_FOUND);
    return link;
  }

  /**
   * The body, from batches read in one snapshot, with the content of exactly the rows in it
   * (the snapshot's, which may be later than the content the request read): it is served again
   * only while the table holds exactly those rows.
   */
  private async render(): Promise<RenderedList> {
    let count = 0;
    let xor = 0n;
    async function* hashed(batches: AsyncIterable<ListedLinkRow[]>) {
      for await (const batch of batches) {
        for (const row of batch) xor ^= BigInt(row.hash);
        count += batch.length;
        yield batch;
      }
    }
    const body = await this.links.inOneSnapshot((read) =>
      renderLinksList(hashed(this.batches(read))),
    );
    return {
      // A body short enough to keep is kept whole, with each compressed form once made; a
      // longer one is sent in the pieces it was rendered in.
      body:
        body.length <= KEPT_LIST_MAX_BYTES
          ? new PrecompressedBody(Buffer.concat(body.chunks, body.length))
          : body,
      etag: body.weakEtag(),
      content: listContent(count, xor),
    };
  }
}
