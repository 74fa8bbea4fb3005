import { ApiProperty } from '@nestjs/swagger';
import { TimestampProperty } from '../../openapi/timestamp.property';

export class LinkResponse {
  @ApiProperty({ description: 'Opaque identifier', example: 'link-001' })
  id!: string;

  @TimestampProperty()
  createdAt!: string;

  @TimestampProperty()
  updatedAt!: string;
}
