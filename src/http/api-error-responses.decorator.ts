import { STATUS_CODES } from 'node:http';
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ProblemDetailsDto } from './problem-details.dto';
import { DATABASE_UNAVAILABLE } from '../database/database-unavailable';
import {
  API_KEY_REQUIRED,
  bodyTooLarge,
  CLIENT_NOT_FOUND,
  INVALID_QUERY,
  RATE_LIMITED,
  READ_ONLY,
  UNEXPECTED_ERROR,
} from './error-texts';
import { MAX_REQUEST_BODY_BYTES } from './request-size';

interface ErrorDoc {
  description: string;
  detail: string;
  header?: { name: string; description: string; example: string };
}

const ERRORS: Record<number, ErrorDoc> = {
  400: {
    description: 'Invalid query: `errors` names every offending parameter',
    detail: INVALID_QUERY,
  },
  401: {
    description: 'Missing, malformed or unknown API key (see the WWW-Authenticate header)',
    detail: API_KEY_REQUIRED,
    header: {
      name: 'WWW-Authenticate',
      description: 'With `error="invalid_token"` when a key was sent but is not valid',
      example: 'Bearer realm="api", error="invalid_token"',
    },
  },
  404: { description: 'No resource has this id', detail: CLIENT_NOT_FOUND },
  405: {
    description: 'Only GET and HEAD are allowed (see the Allow header)',
    detail: READ_ONLY,
    header: { name: 'Allow', description: 'The methods allowed', example: 'GET, HEAD' },
  },
  413: {
    description: 'The request carries a body over 1 KiB (the API reads none)',
    detail: bodyTooLarge(MAX_REQUEST_BODY_BYTES),
  },
  429: {
    description: 'Rate limit exceeded (see the RateLimit-* headers); retry after Retry-After',
    detail: RATE_LIMITED,
    header: { name: 'Retry-After', description: 'Seconds to wait before retrying', example: '30' },
  },
  500: {
    description: 'Unexpected error; the requestId finds it in the logs',
    detail: UNEXPECTED_ERROR,
  },
  503: {
    description: 'The database is unavailable or too slow; retry after the Retry-After header',
    detail: DATABASE_UNAVAILABLE,
    header: { name: 'Retry-After', description: 'Seconds to wait before retrying', example: '5' },
  },
};

// Every data route can answer these, whatever its parameters.
const ALWAYS = [401, 405, 413, 429, 500, 503];

function problemExample(status: number): ProblemDetailsDto {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] as string,
    status,
    detail: ERRORS[status].detail,
    instance: status === 404 ? '/api/data/clients/no-such-id' : '/api/data/clients',
    requestId: '0b6f4a0e-5f0a-4a37-9d0c-3f1b0f6b9c1e',
    ...(status === 400 && {
      errors: [
        { name: 'limit', reason: 'must be an integer from 1 to 1000' },
        { name: 'stauts', reason: 'is not a known parameter' },
      ],
    }),
  };
}

/** Documents the problem+json error responses of a data route (docs/api.md, Errors), with examples. */
export function ApiErrorResponses(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...[...statuses, ...ALWAYS]
      .sort((a, b) => a - b)
      .map((status) => {
        const { description, header } = ERRORS[status];
        return ApiResponse({
          status,
          description,
          ...(header && {
            headers: {
              [header.name]: {
                description: header.description,
                schema: { type: 'string', example: header.example },
              },
            },
          }),
          content: {
            'application/problem+json': {
              schema: { $ref: getSchemaPath(ProblemDetailsDto) },
              example: problemExample(status),
            },
          },
        });
      }),
  );
}
