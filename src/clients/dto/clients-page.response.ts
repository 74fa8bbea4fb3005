import { ApiProperty } from '@nestjs/swagger';
import { exampleCursor } from '../../query/example-cursor';
import { ClientResponse } from './client.response';
import { listClientsScope } from './list-clients.query';

const NEXT_CURSOR = {
  type: String,
  nullable: true,
  description:
    'Opaque; pass it as `cursor` (same filters) to continue after this page. null when no row follows.',
  example: exampleCursor(
    { timestamp: '2026-02-01T00:00:00.000000Z', id: 'client-00002' },
    listClientsScope({}),
  ),
};

export class ClientsPageMeta {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  page!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, example: 100 })
  limit!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Rows matching the filters',
    example: 1,
  })
  total!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'ceil(total / limit)', example: 1 })
  totalPages!: number;

  @ApiProperty(NEXT_CURSOR)
  nextCursor!: string | null;
}

/** A page reached by `cursor`: no page number or totals, since counting is what costs (docs/api.md, Endpoints). */
export class ClientsCursorMeta {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, example: 100 })
  limit!: number;

  @ApiProperty(NEXT_CURSOR)
  nextCursor!: string | null;
}

export class ClientsPageResponse {
  @ApiProperty({ type: [ClientResponse], description: 'This page, by createdAt then id' })
  data!: ClientResponse[];

  @ApiProperty({ type: ClientsPageMeta })
  meta!: ClientsPageMeta;
}

export class ClientsCursorPageResponse {
  @ApiProperty({
    type: [ClientResponse],
    description: 'The rows after the cursor, by createdAt then id',
  })
  data!: ClientResponse[];

  @ApiProperty({ type: ClientsCursorMeta })
  meta!: ClientsCursorMeta;
}
