import { ApiProperty } from '@nestjs/swagger';
import { ClientResponse } from './client.response';

export class ClientsPageMeta {
  @ApiProperty({ minimum: 1, example: 1 })
  page!: number;

  @ApiProperty({ minimum: 1, maximum: 1000, example: 100 })
  limit!: number;

  @ApiProperty({ minimum: 0, description: 'Rows matching the filters', example: 1 })
  total!: number;

  @ApiProperty({ minimum: 0, description: 'ceil(total / limit)', example: 1 })
  totalPages!: number;
}

export class ClientsPageResponse {
  @ApiProperty({ type: [ClientResponse], description: 'This page, by createdAt then id' })
  data!: ClientResponse[];

  @ApiProperty({ type: ClientsPageMeta })
  meta!: ClientsPageMeta;
}
