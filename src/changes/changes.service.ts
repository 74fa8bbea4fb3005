import { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { Position } from '../database/list-order';
import { CursorCodec } from '../query/signed-cursor';
import { ChangesRepository, Feed, FeedRead, FeedRows, PageOptions } from './changes.repository';
import { clientChangesScope, linkChangesScope } from './dto/changes.query';
import { WaitingPolls } from './waiting-polls';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { KeyLinks } from '../api-keys/key-links';
import { LinkScope, linkScopeOf } from '../api-keys/link-scope';
import { boundToKey } from '../query/key-scope';

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
    private readonly keyLinks: KeyLinks,
  ) {}

  links(request: FeedRequest, res: ServerResponse, caller: ApiCaller) {
    return this.follow('links', linkChangesScope(request), request, res, caller);
  }

  clients(request: FeedRequest, res: ServerResponse, caller: ApiCaller) {
    return this.follow('clients', clientChangesScope(request), request, res, caller);
  }

  /**
   * A page at once when rows are ready or no `wait` is asked; else the first page with rows
   * within `wait` seconds, or, without one, the empty page read first (the request's own
   * cursor, like any caught-up poll). A long poll's reads all pass its gate (WaitingPolls).
   */
  private async follow<F extends Feed>(
    feed: F,
    filtersScope: string,
    request: FeedRequest,
    res: ServerResponse,
    caller: ApiCaller,
  ): Promise<ChangesPage<F>> {
    const linkScope = linkScopeOf(caller);
    // A scoped key's cursors are its own: docs/api.md, "Scoped keys".
    const scope = boundToKey(filtersScope, linkScope?.keyId);
    if (request.wait === undefined) {
      return (await this.page(feed, scope, request, { scope: linkScope })).page;
    }
    const gate = this.waitingPolls.gateFor(res);
    const first = await this.waitingPolls.inTurn(
      res,
      this.page(feed, scope, request, { gate, scope: linkScope }),
    );
    if (first.page.rows.length > 0 || this.waitingPolls.isClosing) return first.page;
    const links = await this.linksFollowed(request, linkScope);
    const later = await this.waitingPolls.wait(
      feed,
      links,
      first.safePoint,
      request.wait,
      res,
      async ({ safePoint }) => {
        const read = await this.page(feed, scope, request, { safePoint, gate, scope: linkScope });
        return {
          found: read.page.rows.length > 0 ? read.page : undefined,
          readUpTo: read.safePoint,
        };
      },
    );
    return later ?? first.page;
  }

  /** The links whose changes may wake a poll: its filter's, within its key's scope. */
  private async linksFollowed(
    { linkId }: FeedRequest,
    scope: LinkScope | undefined,
  ): Promise<ReadonlySet<string> | undefined> {
    const ofKey = scope && (await this.keyLinks.of(scope.keyId));
    if (linkId === undefined) return ofKey;
    return !ofKey || ofKey.has(linkId) ? new Set([linkId]) : new Set();
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
