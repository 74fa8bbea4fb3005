import { Injectable, NotFoundException } from '@nestjs/common';
import { ListPosition } from '../database/list-order';
import { isoMicros } from '../database/printed-timestamp';
import { ClientsCursorCodec } from './clients-cursor';
import { ClientFilters, ClientRow, ClientsRepository, PageStart } from './clients.repository';
import { CountCache } from './count-cache';
import { ListClientsQuery } from './dto/list-clients.query';
import { invalidQuery } from '../http/strict-query.pipe';

const CURSOR_REASONS = {
  malformed: 'is not a cursor issued by this service',
  'other-filters': 'was issued for other filters; repeat the filters it came with',
};

/** A page by number carries totals; the page after a cursor does not (counting is the cost). */
export type ClientsPageMeta =
  | { page: number; limit: number; total: number; totalPages: number; nextCursor: string | null }
  | { limit: number; nextCursor: string | null };

export interface ClientsPage {
  clients: ClientRow[];
  meta: ClientsPageMeta;
}

@Injectable()
export class ClientsService {
  constructor(
    private readonly clients: ClientsRepository,
    private readonly totals: CountCache,
    private readonly cursors: ClientsCursorCodec,
  ) {}

  /** What a List Clients request asks for (docs/api.md, List Clients). */
  async list(query: ListClientsQuery): Promise<ClientsPage> {
    const { limit, cursor } = query;
    const filters: ClientFilters = {
      linkId: query.linkId,
      isDeleted: query.isDeleted,
      status: query.status,
    };
    const filtersKey = JSON.stringify([filters.linkId, filters.isDeleted, filters.status]);
    if (cursor !== undefined) {
      const after = this.decodeCursor(cursor, filtersKey);
      const { clients, nextCursor } = await this.page(filters, filtersKey, limit, { after });
      return { clients, meta: { limit, nextCursor } };
    }
    const page = query.page ?? 1;
    const [{ clients, nextCursor }, total] = await Promise.all([
      this.page(filters, filtersKey, limit, { offset: (page - 1) * limit }),
      this.totals.get(filtersKey, () => this.clients.count(filters)),
    ]);
    const totalPages = Math.ceil(total / limit);
    return { clients, meta: { page, limit, total, totalPages, nextCursor } };
  }

  async findOne(id: string): Promise<ClientRow> {
    const client = await this.clients.findById(id);
    if (!client) throw new NotFoundException('No client has this id');
    return client;
  }

  private decodeCursor(cursor: string, filtersKey: string): ListPosition {
    const after = this.cursors.decode(cursor, filtersKey);
    if (typeof after !== 'string') return after;
    throw invalidQuery([{ name: 'cursor', reason: CURSOR_REASONS[after] }]);
  }

  private async page(filters: ClientFilters, filtersKey: string, limit: number, from: PageStart) {
    const rows = await this.clients.page(filters, limit, from);
    const clients = rows.slice(0, limit);
    const last = clients[clients.length - 1];
    const nextCursor =
      rows.length > limit
        ? this.cursors.encode({ createdAt: isoMicros(last.createdAt), id: last.id }, filtersKey)
        : null;
    return { clients, nextCursor };
  }
}
