import {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { DATA_CACHE_CONTROL, DATA_VARY, ERROR_CACHE_CONTROL } from '../responses/caching';
import { MAX_REQUEST_HEAD_BYTES } from '../config/http.env';
import { EXAMPLE_REQUEST_ID, problemDetails } from '../errors/problem-details.dto';
import { headersTooLarge, requestTargetTooLong } from '../errors/error-texts';
import { DOCUMENTED_ID_LENGTH } from '../query/fields';

const text = (description: string, example: string): HeaderObject => ({
  description,
  schema: { type: 'string', example },
});
const count = (description: string, example: number): HeaderObject => ({
  description,
  schema: { type: 'integer', minimum: 0, example },
});

const EVERY_ANSWER: Record<string, HeaderObject> = {
  'X-Request-Id': text(
    'Identifies the request in the logs (the caller’s own if it sent one)',
    EXAMPLE_REQUEST_ID,
  ),
  Vary: text('The body depends on the key and the encoding', DATA_VARY),
  'RateLimit-Limit': count('Requests allowed in the window (when rate limiting is on)', 600),
  'RateLimit-Remaining': count('Requests left in the window', 599),
  'RateLimit-Reset': count('Seconds until the window resets', 60),
  'Server-Timing': text(
    'Milliseconds until the headers: on the database (db) and in all (total); off with SERVER_TIMING=false',
    'db;dur=1.8, total;dur=3.2',
  ),
};
const CACHEABLE: Record<string, HeaderObject> = {
  ETag: text(
    'Weak validator of the exact body; send it back in If-None-Match',
    'W/"5c-Ldl4yQ1mXbG5uS0mZzH6oWm0mJk"',
  ),
  'Cache-Control': text('Keep and revalidate; shared caches must not store', DATA_CACHE_CONTROL),
};
const ERROR: Record<string, HeaderObject> = {
  'Cache-Control': text('Errors are never stored', ERROR_CACHE_CONTROL),
};

const NOT_MODIFIED: ResponseObject = {
  description: 'If-None-Match matched the current ETag: no body; keep using the stored one',
  headers: { ...EVERY_ANSWER, ...CACHEABLE },
};
// Refused while Node's HTTP parser reads the head (client-error.ts): no request exists yet, so
// the answer has a new id, no `instance`, and none of the headers of an answered request.
function refusedByParser(status: number, description: string, detail: string): ResponseObject {
  return {
    description,
    headers: { 'X-Request-Id': EVERY_ANSWER['X-Request-Id'], ...ERROR },
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/ProblemDetailsDto' },
        example: problemDetails(status, detail, EXAMPLE_REQUEST_ID),
      },
    },
  };
}
const REFUSED_BY_PARSER: Record<string, ResponseObject> = {
  '414': refusedByParser(
    414,
    `The request target alone reaches the ${MAX_REQUEST_HEAD_BYTES}-byte limit on a request head (its target, header names and values)`,
    requestTargetTooLong(MAX_REQUEST_HEAD_BYTES),
  ),
  '431': refusedByParser(
    431,
    `The request headers take the request head (its target, header names and values) to the ${MAX_REQUEST_HEAD_BYTES}-byte limit`,
    headersTooLarge(MAX_REQUEST_HEAD_BYTES),
  ),
};

/**
 * What the decorators cannot say, applied to every data operation alike so that routes added
 * later get it too: the headers every answer carries, 304/414/431, HEAD beside each GET, and
 * closed schemas (no property beyond those declared) so that a response drifting from its
 * shape fails validation.
 */
export function makeExact(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    const get = item.get;
    if (!get) continue;
    get.parameters = get.parameters?.map((parameter) =>
      'in' in parameter && parameter.in === 'path' ? bounded(parameter) : parameter,
    );
    get.responses = {
      ...get.responses,
      '304': NOT_MODIFIED,
      ...REFUSED_BY_PARSER,
    };
    for (const [status, response] of Object.entries(get.responses) as [string, ResponseObject][]) {
      if (!REFUSED_BY_PARSER[status]) addHeaders(status, response);
    }
    get.responses = sortByStatus(get.responses);
    item.head = headOf(get);
  }
  for (const schema of Object.values(document.components?.schemas ?? {}) as SchemaObject[]) {
    close(schema);
  }
  return document;
}

// Sent on every 200, so a generated client may count on them.
const ON_EVERY_200 = ['X-Request-Id', 'Vary', 'ETag', 'Cache-Control'];

function addHeaders(status: string, response: ResponseObject): void {
  const own = status.startsWith('2') || status === '304' ? CACHEABLE : ERROR;
  response.headers = { ...EVERY_ANSWER, ...own, ...response.headers };
  if (status !== '200') return;
  for (const name of ON_EVERY_200) {
    response.headers[name] = { ...response.headers[name], required: true };
  }
}

// Any id is accepted (an unknown one is a 404); only the request head's size bounds it.
function bounded(parameter: ParameterObject): ParameterObject {
  const schema = parameter.schema as SchemaObject | undefined;
  return { ...parameter, schema: { ...schema, minLength: 1, maxLength: DOCUMENTED_ID_LENGTH } };
}

function headOf(get: OperationObject): OperationObject {
  const responses = Object.fromEntries(
    Object.entries(get.responses).map(([status, response]) => {
      const { content: _content, ...rest } = response as ResponseObject;
      return [status, { ...rest }];
    }),
  );
  return {
    ...get,
    operationId: `${get.operationId}Head`,
    summary: `${get.summary} (headers only)`,
    description: 'Answers like GET, with the same headers and no body.',
    responses,
  };
}

// Statuses ('200', '4XX', 'default') compared by code unit: the order localeCompare gave these,
// without loading ICU's collation data (~1.7 MiB resident for the process's life). (An object
// lists numeric keys in ascending order anyway: the sort places the others.)
function sortByStatus<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

function close(schema: SchemaObject): void {
  if (schema.type !== 'object' || !schema.properties) return;
  schema.additionalProperties = false;
}
