import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { CountCache } from './count-cache';
import { DatabaseReader } from '../database/database-reader';
import { ListPosition } from '../database/list-order';
import { isoMicros } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { ClientsCursorCodec } from './clients-cursor';
import { ClientColumns, clientJson } from './client.renderer';
import { ClientFilters, countQuery, getQuery, pageQuery } from './clients.repository';
import { ListClientsQuery } from './dto/list-clients.query';

const CURSOR_REASONS = {
  malformed: 'is not a cursor issued by this service',
  'other-filters': 'was issued for other filters; repeat the filters it came with',
};

interface Page {
  dataJson: string;
  nextCursor: string | null;
}

@Injectable()
export class ClientsService {
  constructor(
    private readonly database: DatabaseReader,
    private readonly totals: CountCache,
    private readonly cursors: ClientsCursorCodec,
  ) {}

  /** The JSON text of a List Clients response (CONTRACT §2). */
  async list(query: ListClientsQuery): Promise<string> {
    const { limit, cursor } = query;
    const filters: ClientFilters = {
      linkId: query.linkId,
      isDeleted: query.isDeleted,
      status: query.status,
    };
    const filtersKey = JSON.stringify([filters.linkId, filters.isDeleted, filters.status]);
    if (cursor !== undefined) {
      const after = this.cursors.decode(cursor, filtersKey);
      if (typeof after === 'string') {
        throw new BadRequestException({
          message: 'Invalid query parameters',
          errors: [{ name: 'cursor', reason: CURSOR_REASONS[after] }],
        });
      }
      const { dataJson, nextCursor } = await this.page(filters, filtersKey, limit, { after });
      return `{"data":${dataJson},"meta":${JSON.stringify({ limit, nextCursor })}}`;
    }
    const page = query.page ?? 1;
    const [{ dataJson, nextCursor }, total] = await Promise.all([
      this.page(filters, filtersKey, limit, { offset: (page - 1) * limit }),
      this.totals.get(filtersKey, () => this.count(filters)),
    ]);
    const meta = { page, limit, total, totalPages: Math.ceil(total / limit), nextCursor };
    return `{"data":${dataJson},"meta":${JSON.stringify(meta)}}`;
  }

  /** The JSON text of one client. */
  async findOne(id: string): Promise<string> {
    const { text, params } = getQuery(id);
    const [row] = isStorableText(id)
      ? await this.database.query<ClientColumns[]>(text, params)
      : [];
    if (!row) throw new NotFoundException('No client has this id');
    return clientJson(row);
  }

  private async page(
    filters: ClientFilters,
    filtersKey: string,
    limit: number,
    from: { offset: number } | { after: ListPosition },
  ): Promise<Page> {
    // A link id with NUL matches nothing (CONTRACT §2), and PostgreSQL would reject the query.
    if (!isStorableText(filters.linkId ?? '')) return { dataJson: '[]', nextCursor: null };
    const { text, params } = pageQuery(filters, limit, from);
    const rows = await this.database.query<ClientColumns[]>(text, params);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > limit
        ? this.cursors.encode({ createdAt: isoMicros(last.createdAt), id: last.id }, filtersKey)
        : null;
    return { dataJson: `[${page.map(clientJson).join(',')}]`, nextCursor };
  }

  private async count(filters: ClientFilters): Promise<number> {
    if (!isStorableText(filters.linkId ?? '')) return 0;
    const { text, params } = countQuery(filters);
    const [row] = await this.database.query<{ total: string }[]>(text, params);
    return Number(row.total);
  }
}
