import { ApiProperty } from '@nestjs/swagger';
import { LinkResponse } from './link.response';

export class LinksListMeta {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of links', example: 1 })
  total!: number;
}

export class LinksListResponse {
  @ApiProperty({ type: [LinkResponse], description: 'Every link, by createdAt then id' })
  data!: LinkResponse[];

  @ApiProperty({ type: LinksListMeta })
  meta!: LinksListMeta;
}
