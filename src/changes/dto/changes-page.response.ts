import { ApiProperty } from '@nestjs/swagger';
import { ClientResponse } from '../../clients/dto/client.response';
import { LinkResponse } from '../../links/dto/link.response';
import { exampleCursor } from '../../query/example-cursor';
import { linkChangesScope } from './changes.query';

export class ChangesMeta {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, example: 100 })
  limit!: number;

  @ApiProperty({
    description:
      'Never null: the position after the last row returned, or this request’s own position ' +
      'when none was. Store it and poll with it.',
    example: exampleCursor(
      { timestamp: '2026-01-01T01:00:00.000000Z', id: 'link-01' },
      linkChangesScope(),
    ),
  })
  nextCursor!: string;

  @ApiProperty({
    description: 'true: the page was full, more rows are ready now; false: caught up',
  })
  hasMore!: boolean;
}

export class ClientChangesResponse {
  @ApiProperty({ type: [ClientResponse], description: 'Changed clients, by updatedAt then id' })
  data!: ClientResponse[];

  @ApiProperty({ type: ChangesMeta })
  meta!: ChangesMeta;
}

export class LinkChangesResponse {
  @ApiProperty({ type: [LinkResponse], description: 'Changed links, by updatedAt then id' })
  data!: LinkResponse[];

  @ApiProperty({ type: ChangesMeta })
  meta!: ChangesMeta;
}
