// The `detail` of each problem the API answers with, written once: where it is thrown and in
// the OpenAPI examples (api-error-responses.decorator.ts).
export const INVALID_QUERY = 'Invalid query parameters';
export const API_KEY_REQUIRED = 'A valid API key is required: Authorization: Bearer <key>';
export const AUTHORIZATION_REPEATED = 'Send one Authorization header, not several';
/** The `Allow` header of every 405. */
export const ALLOWED_METHODS = 'GET, HEAD';
export const READ_ONLY = 'This resource is read-only; use GET or HEAD';
export const RATE_LIMITED = 'Rate limit exceeded; retry after the seconds in Retry-After';
export const SERVICE_BUSY = 'The service is busy; retry after the seconds in Retry-After';
export const TOO_MANY_IN_FLIGHT_FOR_KEY =
  'Too many requests of this API key are being answered at once; retry after the seconds in Retry-After';
export const TOO_MANY_WAITING_FOR_KEY =
  'Too many long polls of this API key are waiting at once; retry after the seconds in Retry-After';
export const pageTooDeep = (maxDepth: number) =>
  `must keep page × limit within ${maxDepth} rows: walk deeper with cursor paging (meta.nextCursor)`;
export const lacksScope = (operation: string) =>
  `This API key may not use this operation: its scopes lack ${operation}`;
export const UNEXPECTED_ERROR = 'An unexpected error occurred; it has been logged';
export const NO_RESOURCE = 'No resource exists at this path';
export const CLIENT_NOT_FOUND = 'No client has this id';
export const LINK_NOT_FOUND = 'No link has this id';
export const INVALID_PATH = 'Invalid path parameters';
export const INVALID_PERCENT_ENCODING = 'must be valid percent-encoded UTF-8';
export const bodyTooLarge = (maxBytes: number) => `Request bodies are limited to ${maxBytes} bytes`;
export const MALFORMED_REQUEST = 'The request is malformed';
export const REQUEST_TIMEOUT = 'The request was not received in time';
export const HOST_REQUIRED = 'An HTTP/1.1 request needs a Host header';
export const UNKNOWN_EXPECTATION = 'No expectation but Expect: 100-continue is supported';
export const requestTargetTooLong = (maxBytes: number) =>
  `The request target is too long: a request head must stay under ${maxBytes} bytes`;
export const headersTooLarge = (maxBytes: number) =>
  `The request headers are too large: a request head must stay under ${maxBytes} bytes`;
