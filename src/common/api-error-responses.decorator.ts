import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ProblemDetailsDto } from './problem-details.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid query: `errors` names every offending parameter',
  401: 'Missing, malformed or unknown API key (see the WWW-Authenticate header)',
  404: 'No resource has this id',
  405: 'Only GET and HEAD are allowed (see the Allow header)',
  429: 'Rate limit exceeded; retry after the Retry-After header (see also the RateLimit-* headers)',
  500: 'Unexpected error; the requestId finds it in the logs',
  503: 'The database is unavailable or too slow; retry after the Retry-After header',
};

// Every data route can answer these, whatever its parameters.
const ALWAYS = [401, 405, 429, 500, 503];

/** Documents the problem+json error responses of a data route (CONTRACT §3). */
export function ApiErrorResponses(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...[...statuses, ...ALWAYS]
      .sort((a, b) => a - b)
      .map((status) =>
        ApiResponse({
          status,
          description: DESCRIPTIONS[status],
          content: {
            'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetailsDto) } },
          },
        }),
      ),
  );
}
