import { ApiProperty } from '@nestjs/swagger';
import { TimestampProperty } from '../../openapi/timestamp.property';

export class ClientResponse {
  @ApiProperty({ description: 'Opaque identifier', example: 'client-00001' })
  id!: string;

  @ApiProperty({ example: 'link-001' })
  linkId!: string;

  @ApiProperty({ description: 'Soft-delete flag', example: false })
  isDeleted!: boolean;

  @ApiProperty({
    description: '`new` and `connected` can be filtered on; other stored values are returned as is',
    example: 'connected',
  })
  status!: string;

  @TimestampProperty()
  createdAt!: string;

  @TimestampProperty()
  updatedAt!: string;
}
