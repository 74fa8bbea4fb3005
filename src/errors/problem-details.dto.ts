import { STATUS_CODES } from 'node:http';
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
      'The request path; absent when the HTTP server refused the request before the app read it (malformed HTTP, a 414 or 431, an unknown method, a client too slow, an unknown Expect)',
    example: '/api/data/clients',
  })
  instance?: string;

  @ApiProperty({ description: 'Also in the X-Request-Id header and the logs', example: '3f0e…' })
  requestId!: string;

  @ApiPropertyOptional({ type: [ParameterErrorDto], description: 'On a 400: each bad parameter' })
  errors?: ParameterErrorDto[];
}

/**
 * The problem details of an error, fields in the order they are sent. `instance` is left out
 * when no request path was read (the HTTP parser refused the request).
 */
export function problemDetails(
  status: number,
  detail: string,
  requestId: string,
  { instance, errors }: { instance?: string; errors?: ParameterErrorDto[] } = {},
): ProblemDetailsDto {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(instance !== undefined && { instance }),
    requestId,
    ...(errors && { errors }),
  };
}

/** The request id the OpenAPI document's examples show. */
export const EXAMPLE_REQUEST_ID = '0b6f4a0e-5f0a-4a37-9d0c-3f1b0f6b9c1e';
