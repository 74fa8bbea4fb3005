import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import {
  EXAMPLE_REQUEST_ID,
  ParameterErrorDto,
  problemDetails,
  ProblemDetailsDto,
} from '../errors/problem-details.dto';
import { DATABASE_UNAVAILABLE } from '../database/database-unavailable';
import {
  API_KEY_REQUIRED,
  bodyTooLarge,
  INVALID_QUERY,
  RATE_LIMITED,
  UNEXPECTED_ERROR,
  lacksScope,
} from '../errors/error-texts';
import { limitRule } from '../query/fields';
import { MAX_REQUEST_BODY_BYTES } from '../requests/request-size';
import { UNKNOWN_PARAMETER } from '../query/strict-query.pipe';

interface ErrorDoc {
  description: string;
  /** The example's detail; a 404's is its route's (RouteErrorExamples.notFound). */
  detail?: string;
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
  403: {
    description:
      'A scoped key whose operations do not include this one (the detail names the scope it lacks: `links:read`, `clients:read` or `changes:read`)',
  },
  404: { description: 'No resource has this id (or none the key may see)' },
  413: {
    description: 'The request carries a body over 1 KiB (the API parses none)',
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

// Every data route can answer these, whatever its parameters, and 400 for a bad query.
const ALWAYS = [400, 401, 403, 413, 429, 500, 503];

/** The scope each data path needs (the controllers' @RequiresOperation). */
const operationOf = (path: string): string =>
  path.startsWith('/api/data/changes')
    ? 'changes:read'
    : path.startsWith('/api/data/clients')
      ? 'clients:read'
      : 'links:read';

/** Errors a bad query's example can show. */
export const LIMIT_OUT_OF_RANGE: ParameterErrorDto = { name: 'limit', reason: limitRule.message };
export const unknownParameter = (name: string): ParameterErrorDto => ({
  name,
  reason: UNKNOWN_PARAMETER,
});

/** What a route's examples show: its path, a bad query's errors and, for a get, its 404. */
export interface RouteErrorExamples {
  path: string;
  badQuery: ParameterErrorDto[];
  /** A get by id: the 404's detail, shown for `<path>/no-such-id`. */
  notFound?: string;
}

function problemExample(status: number, route: RouteErrorExamples): ProblemDetailsDto {
  const detail =
    status === 403
      ? lacksScope(operationOf(route.path))
      : ((ERRORS[status].detail ?? route.notFound) as string);
  return problemDetails(status, detail, EXAMPLE_REQUEST_ID, {
    instance: route.notFound ? `${route.path}/no-such-id` : route.path,
    errors: status === 400 ? route.badQuery : undefined,
  });
}

/**
 * Documents the problem+json error responses of a data route (docs/api.md, Errors), with
 * examples of its own: a get by id adds its 404.
 */
export function ApiErrorResponses(route: RouteErrorExamples) {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...[...ALWAYS, ...(route.notFound ? [404] : [])]
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
              example: problemExample(status, route),
            },
          },
        });
      }),
  );
}
