import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';
import { isStorableText } from '../database/storable-text';
import { Client } from './client.entity';
import { ClientResponse } from './dto/client.response';
import { ClientsPageResponse } from './dto/clients-page.response';
import { ListClientsQuery } from './dto/list-clients.query';

@Injectable()
export class ClientsService {
  constructor(@InjectRepository(Client) private readonly clients: Repository<Client>) {}

  async list(query: ListClientsQuery): Promise<ClientsPageResponse> {
    const { page, limit } = query;
    // A link id with NUL matches nothing (CONTRACT §2), and PostgreSQL would reject the query.
    const [rows, total] = isStorableText(query.linkId ?? '')
      ? await Promise.all([this.page(query), this.count(query)])
      : [[], 0];
    return {
      data: rows.map(ClientResponse.from),
      meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
    };
  }

  async findOne(id: string): Promise<ClientResponse> {
    const client = isStorableText(id) ? await this.clients.findOneBy({ id }) : null;
    if (!client) throw new NotFoundException('No client has this id');
    return ClientResponse.from(client);
  }

  private page(query: ListClientsQuery): Promise<Client[]> {
    return this.filtered(query)
      .orderBy('client.createdAt', 'ASC')
      .addOrderBy('client.id COLLATE "C"', 'ASC')
      .offset((query.page - 1) * query.limit)
      .limit(query.limit)
      .getMany();
  }

  // count(*) rather than getCount(), which counts DISTINCT ids: the same answer, more work.
  private async count(query: ListClientsQuery): Promise<number> {
    const row = await this.filtered(query)
      .select('count(*)', 'total')
      .getRawOne<{ total: string }>();
    return Number(row?.total ?? 0);
  }

  private filtered({ linkId, isDeleted, status }: ListClientsQuery): SelectQueryBuilder<Client> {
    const builder = this.clients.createQueryBuilder('client');
    if (linkId !== undefined) builder.andWhere('client.linkId = :linkId', { linkId });
    if (isDeleted !== undefined) builder.andWhere('client.isDeleted = :isDeleted', { isDeleted });
    if (status !== undefined) builder.andWhere('client.status = :status', { status });
    return builder;
  }
}
