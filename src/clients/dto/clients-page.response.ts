import { ApiProperty } from '@nestjs/swagger';
import { ClientResponse } from './client.response';

const NEXT_CURSOR = {
  type: String,
  nullable: true,
  description:
    'Opaque; pass it as `cursor` (same filters) to continue after this page. null when no row follows.',
  example:
    'WyIyMDI2LTAyLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMDAwMDIiLCJhYmMiXQ.8YV0r3o1o0lWl2w0Y2r0xA',
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
