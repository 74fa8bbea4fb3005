import { Injectable } from '@nestjs/common';
import { renderClient } from '../clients/client.renderer';
import { ClientRow } from '../clients/clients.repository';
import { CursorCodec, CursorPosition } from '../http/signed-cursor';
import { DatabaseReader } from '../database/database-reader';
import { isoMicros } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { renderLink } from '../links/link.renderer';
import { changesQuery, Feed, safePointQuery } from './changes.sql';
import { clientChangesScope, linkChangesScope } from './dto/changes.query';

/** Where a feed starts without a cursor: before every row. */
const START: CursorPosition = { timestamp: '-infinity', id: '' };

interface FeedRequest {
  limit: number;
  after?: CursorPosition;
  linkId?: string;
}

const RENDER = {
  links: (row: ClientRow) => renderLink(row),
  clients: (row: ClientRow) => renderClient(row),
};

/** The change feeds (docs/api.md "Change feeds"): rows in (updatedAt, id) order, gap-free. */
@Injectable()
export class ChangesService {
  constructor(
    private readonly database: DatabaseReader,
    private readonly cursors: CursorCodec,
  ) {}

  links(request: FeedRequest): Promise<string> {
    return this.page('links', linkChangesScope(), request);
  }

  clients(request: FeedRequest): Promise<string> {
    return this.page('clients', clientChangesScope(request), request);
  }

  private async page(feed: Feed, scope: string, { limit, after = START, linkId }: FeedRequest) {
    // A link id with NUL matches nothing, and PostgreSQL would reject the query.
    const rows = isStorableText(linkId ?? '') ? await this.read(feed, after, limit, linkId) : [];
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const position = last ? { timestamp: isoMicros(last.updatedAt), id: last.id } : after;
    const meta = {
      limit,
      nextCursor: this.cursors.encode(position, scope),
      hasMore: rows.length > limit,
    };
    return `{"data":[${page.map(RENDER[feed]).join(',')}],"meta":${JSON.stringify(meta)}}`;
  }

  /** The safe point first, then the page, both from the primary (replicas cannot see its writers). */
  private async read(feed: Feed, after: CursorPosition, limit: number, linkId?: string) {
    const safePoint = await this.safePoint();
    const { text, params } = changesQuery(feed, after, isoMicros(safePoint), limit, linkId);
    return this.database.query<ClientRow[]>(text, params, { primary: true });
  }

  private async safePoint(): Promise<string> {
    const { text, params } = safePointQuery();
    const [row] = await this.database.query<{ safePoint: string }[]>(text, params, {
      primary: true,
    });
    return row.safePoint;
  }
}
