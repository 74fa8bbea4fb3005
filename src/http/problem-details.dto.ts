import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ParameterErrorDto {
  @ApiProperty({ description: 'The offending query parameter', example: 'limit' })
  name!: string;

  @ApiProperty({ example: 'must be an integer from 1 to 1000' })
  reason!: string;
}

/** RFC 9457 problem details, the body of every error (docs/api.md, Errors). */
export class ProblemDetailsDto {
  @ApiProperty({ enum: ['about:blank'], example: 'about:blank' })
  type!: 'about:blank';

  @ApiProperty({ example: 'Bad Request' })
  title!: string;

  @ApiProperty({ type: 'integer', example: 400 })
  status!: number;

  @ApiProperty({ example: 'Invalid query parameters' })
  detail!: string;

  @ApiPropertyOptional({
    description:
      'The request path; absent when the request was refused before its path was read (a 414 or 431, malformed HTTP)',
    example: '/api/data/clients',
  })
  instance?: string;

  @ApiProperty({ description: 'Also in the X-Request-Id header and the logs', example: '3f0e…' })
  requestId!: string;

  @ApiPropertyOptional({ type: [ParameterErrorDto], description: 'On a 400: each bad parameter' })
  errors?: ParameterErrorDto[];
}
