import { ApiProperty } from '@nestjs/swagger';

export class LinkResponse {
  @ApiProperty({ description: 'Opaque identifier', example: 'link-001' })
  id!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-02T03:04:05.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-02T03:04:05.000Z' })
  updatedAt!: string;
}
