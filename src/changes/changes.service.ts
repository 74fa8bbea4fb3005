import { Injectable } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { Position } from '../database/list-order';
import { CursorCodec } from '../query/signed-cursor';
import { ChangesRepository, Feed, FeedRows } from './changes.repository';
import { clientChangesScope, linkChangesScope } from './dto/changes.query';

/** Where a feed starts without a cursor: before every row. */
const START: Position = { timestamp: '-infinity', id: '' };

export interface FeedRequest {
  limit: number;
  after?: Position;
  linkId?: string;
}

/** A page of a feed, as data (changes.renderer.ts writes its JSON). */
export interface ChangesPage<F extends Feed = Feed> {
  feed: F;
  rows: FeedRows[F][];
  meta: { limit: number; nextCursor: string; hasMore: boolean };
}

/** The change feeds (docs/api.md "Change feeds"): rows in (updatedAt, id) order, gap-free. */
@Injectable()
export class ChangesService {
  constructor(
    private readonly repository: ChangesRepository,
    private readonly cursors: CursorCodec,
  ) {}

  links(request: FeedRequest): Promise<ChangesPage<'links'>> {
    return this.page('links', linkChangesScope(), request);
  }

  clients(request: FeedRequest): Promise<ChangesPage<'clients'>> {
    return this.page('clients', clientChangesScope(request), request);
  }

  private async page<F extends Feed>(
    feed: F,
    scope: string,
    { limit, after = START, linkId }: FeedRequest,
  ): Promise<ChangesPage<F>> {
    const read = await this.repository.page(feed, after, limit, linkId);
    const rows = read.slice(0, limit);
    const last = rows[rows.length - 1];
    // Never null: with no row, the request's own position (docs/api.md "Change feeds").
    const position = last ? { timestamp: isoMicros(last.updatedAt), id: last.id } : after;
    const meta = {
      limit,
      nextCursor: this.cursors.encode(position, scope),
      hasMore: read.length > limit,
    };
    return { feed, rows, meta };
  }
}
