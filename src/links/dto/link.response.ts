import { ApiProperty } from '@nestjs/swagger';
import { Link } from '../link.entity';

export class LinkResponse {
  @ApiProperty({ description: 'Opaque identifier', example: 'link-001' })
  id!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-02T03:04:05.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-02T03:04:05.000Z' })
  updatedAt!: string;

  static from(link: Link): LinkResponse {
    return {
      id: link.id,
      createdAt: link.createdAt.toISOString(),
      updatedAt: link.updatedAt.toISOString(),
    };
  }
}
