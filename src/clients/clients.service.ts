import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { LimitsEnv } from '../config/limits.env';
import { CLIENT_NOT_FOUND, pageTooDeep } from '../errors/error-texts';
import { invalidQuery } from '../query/strict-query.pipe';
import { WorkLimits } from '../limits/work-limits';
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
  async list(query: ListClientsQuery): Promise<ClientsPage> {
    const { limit, after } = query;
    const filters: ClientFilters = query;
    const scope = listClientsScope(query);
    // The validation pipe has verified the cursor against these filters.
    if (after !== undefined) {
      const { clients, nextCursor } = await this.page(filters, scope, limit, { after });
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
      const total = await this.total(scope, filters);
      if (offset < total) throw invalidQuery([{ name: 'page', reason: this.tooDeep }]);
      return { clients: [], meta: meta(total, null) };
    }
    const read = () => this.page(filters, scope, limit, { offset });
    const { clients, nextCursor } =
      offset >= DEEP_OFFSET ? await this.limits.run('deep_page', read) : await read();
    // A page that holds the list's last row tells the total itself: only a full page, or one
    // past the end, needs a count, which may not undercut the rows this page proves.
    const holdsTheLastRow = nextCursor === null && (clients.length > 0 || offset === 0);
    const seen = clients.length > 0 ? offset + clients.length + (nextCursor === null ? 0 : 1) : 0;
    const total = holdsTheLastRow
      ? offset + clients.length
      : await this.total(scope, filters, seen);
    return { clients, meta: meta(total, nextCursor) };
  }

  async findOne(id: string): Promise<ClientRow> {
    const client = await this.clients.findById(id);
    if (!client) throw new NotFoundException(CLIENT_NOT_FOUND);
    return client;
  }

  /** The list's total, counted within the counts' cap and cached (CountCache). */
  private total(scope: string, filters: ClientFilters, atLeast = 0): Promise<number> {
    return this.totals.get(
      scope,
      () => this.limits.run('count', () => this.clients.count(filters)),
      atLeast,
    );
  }

  private async page(filters: ClientFilters, scope: string, limit: number, from: PageStart) {
    const rows = await this.clients.page(filters, limit, from);
    const clients = rows.slice(0, limit);
    const last = clients[clients.length - 1];
    const nextCursor =
      rows.length > limit
        ? this.cursors.encode({ timestamp: isoMicros(last.createdAt), id: last.id }, scope)
        : null;
    return { clients, nextCursor };
  }
}
