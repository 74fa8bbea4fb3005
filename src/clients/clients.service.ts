import { Injectable, NotFoundException } from '@nestjs/common';
import { isoMicros } from '../database/printed-timestamp';
import { CLIENT_NOT_FOUND } from '../http/error-texts';
import { CursorCodec } from '../http/signed-cursor';
import { ClientFilters, ClientRow, ClientsRepository, PageStart } from './clients.repository';
import { CountCache } from './count-cache';
import { ListClientsQuery, listClientsScope } from './dto/list-clients.query';

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
  constructor(
    private readonly clients: ClientsRepository,
    private readonly totals: CountCache,
    private readonly cursors: CursorCodec,
  ) {}

  /** What a List Clients request asks for (docs/api.md, Endpoints). */
  async list(query: ListClientsQuery): Promise<ClientsPage> {
    const { limit, after } = query;
    const filters: ClientFilters = {
      linkId: query.linkId,
      isDeleted: query.isDeleted,
      status: query.status,
    };
    const scope = listClientsScope(query);
    // The validation pipe has verified the cursor against these filters.
    if (after !== undefined) {
      const { clients, nextCursor } = await this.page(filters, scope, limit, { after });
      return { clients, meta: { limit, nextCursor } };
    }
    const page = query.page ?? 1;
    const offset = (page - 1) * limit;
    const { clients, nextCursor } = await this.page(filters, scope, limit, { offset });
    // A page that holds the list's last row tells the total itself: only a full page, or one
    // past the end, needs a count.
    const holdsTheLastRow = nextCursor === null && (clients.length > 0 || offset === 0);
    const total = holdsTheLastRow
      ? offset + clients.length
      : await this.totals.get(scope, () => this.clients.count(filters));
    const totalPages = Math.ceil(total / limit);
    return { clients, meta: { page, limit, total, totalPages, nextCursor } };
  }

  async findOne(id: string): Promise<ClientRow> {
    const client = await this.clients.findById(id);
    if (!client) throw new NotFoundException(CLIENT_NOT_FOUND);
    return client;
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
