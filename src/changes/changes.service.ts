import { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { Position } from '../database/list-order';
import { CursorCodec } from '../query/signed-cursor';
import { ChangesRepository, Feed, FeedRead, FeedRows, PageOptions } from './changes.repository';
import { clientChangesScope, linkChangesScope } from './dto/changes.query';
import { WaitingPolls } from './waiting-polls';

/** Where a feed starts without a cursor: before every row. */
const START: Position = { timestamp: '-infinity', id: '' };

export interface FeedRequest {
  limit: number;
  after?: Position;
  linkId?: string;
  /** Seconds to wait for a change when none is ready (long polling). */
  wait?: number;
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
  private readonly pagesOf = new WeakMap<FeedRead<Feed>, Map<string, ChangesPage>>();

  constructor(
    private readonly repository: ChangesRepository,
    private readonly cursors: CursorCodec,
    private readonly waitingPolls: WaitingPolls,
  ) {}

  links(request: FeedRequest, res: ServerResponse): Promise<ChangesPage<'links'>> {
    return this.follow('links', linkChangesScope(), request, res);
  }

  clients(request: FeedRequest, res: ServerResponse): Promise<ChangesPage<'clients'>> {
    return this.follow('clients', clientChangesScope(request), request, res);
  }

  /**
   * A page at once when rows are ready or no `wait` is asked; else the first page with rows
   * within `wait` seconds, or, without one, the empty page read first (the request's own
   * cursor, like any caught-up poll). A long poll's reads all pass its gate (WaitingPolls).
   */
  private async follow<F extends Feed>(
    feed: F,
    scope: string,
    request: FeedRequest,
    res: ServerResponse,
  ): Promise<ChangesPage<F>> {
    if (request.wait === undefined) return (await this.page(feed, scope, request)).page;
    const gate = this.waitingPolls.gateFor(res);
    const first = await this.page(feed, scope, request, { gate });
    if (first.page.rows.length > 0) return first.page;
    const links = request.linkId === undefined ? undefined : new Set([request.linkId]);
    const later = await this.waitingPolls.wait(
      feed,
      links,
      first.safePoint,
      request.wait,
      res,
      async ({ safePoint }) => {
        const read = await this.page(feed, scope, request, { safePoint, gate });
        return {
          found: read.page.rows.length > 0 ? read.page : undefined,
          readUpTo: read.safePoint,
        };
      },
    );
    return later ?? first.page;
  }

  private async page<F extends Feed>(
    feed: F,
    scope: string,
    request: FeedRequest,
    options?: PageOptions,
  ): Promise<{ page: ChangesPage<F>; safePoint: string }> {
    const { limit, after = START } = request;
    const read = await this.repository.page(feed, after, limit, request, options);
    // The requests that shared a read share its page (and its text): same rows, same cursor.
    const pages = this.pagesOf.get(read) ?? new Map<string, ChangesPage>();
    this.pagesOf.set(read, pages);
    let page = pages.get(scope) as ChangesPage<F> | undefined;
    if (page === undefined) {
      page = this.toPage(feed, scope, request, read);
      pages.set(scope, page);
    }
    return { page, safePoint: read.safePoint };
  }

  private toPage<F extends Feed>(
    feed: F,
    scope: string,
    { limit, after = START }: FeedRequest,
    read: FeedRead<F>,
  ): ChangesPage<F> {
    const rows = read.rows.slice(0, limit);
    const last = rows[rows.length - 1];
    // Never null: with no row, the request's own position (docs/api.md "Change feeds").
    const position = last ? { timestamp: isoMicros(last.updatedAt), id: last.id } : after;
    const meta = {
      limit,
      nextCursor: this.cursors.encode(position, scope),
      hasMore: read.rows.length > limit,
    };
    return { feed, rows, meta };
  }
}
