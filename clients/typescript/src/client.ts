import createClient, { Client as FetchClient } from 'openapi-fetch';
import { retryingFetch, RetryOptions } from './retrying-fetch.js';
import type { components, paths } from './schema.js';

// Types generated from openapi.json (`npm run openapi`), named for consumers.
export type Link = components['schemas']['LinkResponse'];
export type Client = components['schemas']['ClientResponse'];
export type ProblemDetails = components['schemas']['ProblemDetailsDto'];
export type ApiClient = FetchClient<paths>;

export interface ApiClientOptions {
  /** Where the API is served, e.g. http://localhost:3000 */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`, the only place the API reads a key from. */
  apiKey: string;
  /** Retries of 429, 5xx and network errors; `false` to get every response as it comes. */
  retry?: RetryOptions | false;
  /** The fetch to wrap (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * A typed client for the Links and Clients Data API: `api.GET('/api/data/clients', …)` with
 * paths, parameters and bodies checked against the OpenAPI document.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const baseFetch = options.fetch ?? ((input: Request) => fetch(input));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? baseFetch : retryingFetch(options.retry, baseFetch),
  });
}

/** An error response of the API (RFC 9457 problem details), thrown by the helpers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemDetails | undefined,
  ) {
    const reasons = problem?.errors?.map((e) => `${e.name} ${e.reason}`).join('; ');
    super(`HTTP ${status}: ${problem?.detail ?? 'error'}${reasons ? ` (${reasons})` : ''}`);
    this.name = 'ApiError';
  }
}
