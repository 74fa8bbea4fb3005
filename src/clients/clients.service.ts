import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { LimitsEnv } from '../config/limits.env';
import { CLIENT_NOT_FOUND, pageTooDeep } from '../errors/error-texts';
import { invalidQuery } from '../query/strict-query.pipe';
import { WorkLimits } from '../limits/work-limits';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { LinkScope, linkScopeOf } from '../api-keys/link-scope';
import { boundToKey } from '../query/key-scope';
import { CursorCodec } from '../query/signed-cursor';
import { ClientFilters, ClientRow, ClientsRepository, PageStart } from './clients.repository';
import { CountCache } from './count-cache';
import { ListClientsQuery, listClientsScope } from './dto/list-clients.query';

// A page by number this deep reads so many rows before its own that it counts as costly work.
const DEEP_OFFSET = 10_000;

/** A page by number carries totals; the page after a cursor does not (counting is the cost). */
export type ClientsMeta =
  | { page: number; limit: number; total: number; totalPages: number; nextCursor: string | null }
  | { limit: number; nextCursor: string | null };

export interface ClientsPage {
  clients: ClientRow[];
  meta: ClientsMeta;
}

/**
 * Totals up to this many rows are counted outside MAX_CONCURRENT_COUNTS: a count that stops
 * there reads at most as many index entries, a millisecond or two (docs/performance.md).
 */
export const CHEAP_COUNT_ROWS = 10_000;

@Injectable()
export class ClientsService {
  private readonly maxPageDepth: number;
  private readonly tooDeep: string;

  constructor(
    private readonly clients: ClientsRepository,
    private readonly totals: CountCache,
    private readonly cursors: CursorCodec,
    private readonly limits: WorkLimits,
    limitsEnv: LimitsEnv,
  ) {
    this.maxPageDepth = limitsEnv.MAX_PAGE_DEPTH;
    this.tooDeep = pageTooDeep(this.maxPageDepth);
  }

  /** What a List Clients request asks for (docs/api.md, Endpoints). */
  async list(query: ListClientsQuery, caller: ApiCaller): Promise<ClientsPage> {
    const { limit, after } = query;
    const { keyId } = caller;
    const filters: ClientFilters = query;
    const links = linkScopeOf(caller);
    // A scoped key's pages (and totals) are its own: docs/api.md, "Scoped keys".
    const scope = boundToKey(listClientsScope(query), links?.keyId);
    // The validation pipe has verified the cursor against these filters.
    if (after !== undefined) {
      const { clients, nextCursor } = await this.page(filters, scope, limit, { after }, links);
      return { clients, meta: { limit, nextCursor } };
    }
    const page = query.page ?? 1;
    const offset = (page - 1) * limit;
    const meta = (total: number, nextCursor: string | null) => {
      const totalPages = Math.ceil(total / limit);
      return { page, limit, total, totalPages, nextCursor };
    };
    if (offset + limit > this.maxPageDepth) {
      // Past the end, a page is empty however deep; before it, so deep a page is refused.
      const total = await this.total(scope, filters, keyId, links);
      if (offset < total) throw invalidQuery([{ name: 'page', reason: this.tooDeep }]);
      return { clients: [], meta: meta(total, null) };
    }
    const read = () => this.page(filters, scope, limit, { offset }, links);
    const { clients, nextCursor } =
      offset >= DEEP_OFFSET ? await this.limits.run('deep_page', keyId, read) : await read();
    // A page that holds the list's last row tells the total itself: only a full page, or one
    // past the end, needs a count, which may not undercut the rows this page proves.
    const holdsTheLastRow = nextCursor === null && (clients.length > 0 || offset === 0);
    const seen = clients.length > 0 ? offset + clients.length + (nextCursor === null ? 0 : 1) : 0;
    const total = holdsTheLastRow
      ? offset + clients.length
      : await this.total(scope, filters, keyId, links, seen);
    return { clients, meta: meta(total, nextCursor) };
  }

  /** A client, if the caller may see it: out of its scope, the same 404 as an unknown id. */
  async findOne(id: string, caller: ApiCaller): Promise<ClientRow> {
    const client = await this.clients.findById(id, linkScopeOf(caller));
    if (!client) throw new NotFoundException(CLIENT_NOT_FOUND);
    return client;
  }

  /**
   * The list's total, cached (CountCache; never below `atLeast`, the rows a page proves):
   * counted at once up to CHEAP_COUNT_ROWS, and past them within the counts' cap (in `keyId`'s
   * turn), which is for the counts that cost.
   */
  private total(
    scope: string,
    filters: ClientFilters,
    keyId: string,
    links?: LinkScope,
    atLeast = 0,
  ): Promise<number> {
    return this.totals.get(
      scope,
      async () => {
        const few = await this.clients.countUpTo(filters, CHEAP_COUNT_ROWS, links);
        if (few <= CHEAP_COUNT_ROWS) return few;
        return this.limits.run('count', keyId, () => this.clients.count(filters, links));
      },
      atLeast,
    );
  }

  private async page(
    filters: ClientFilters,
    scope: string,
    limit: number,
    from: PageStart,
    links?: LinkScope,
  ) {
    const rows = await this.clients.page(filters, limit, from, links);
    const clients = rows.slice(0, limit);
    const last = clients[clients.length - 1];
    const nextCursor =
      rows.length > limit
        ? this.cursors.encode({ timestamp: isoMicros(last.createdAt), id: last.id }, scope)
        : null;
    return { clients, nextCursor };
  }
}
