import { ApiClient, ApiError, Client } from './client.js';
import type { operations } from './schema.js';

/** The List Clients filters, as the API document declares them; an omitted one does not restrict. */
export type ClientFilter = Omit<
  NonNullable<operations['listClients']['parameters']['query']>,
  'page' | 'limit' | 'cursor'
>;

export interface ClientPage {
  clients: Client[];
  /** Pass back as `cursor` to continue after this page; null when no row follows. */
  nextCursor: string | null;
}

export interface PageOptions {
  /** Rows per request, 1..1000 (default 1000: fewest requests). */
  limit?: number;
  /** Start after this cursor (a nextCursor from an earlier page with the same filter). */
  cursor?: string | null;
  signal?: AbortSignal;
}

/**
 * Every page of clients matching `filter`, in the API's order (createdAt, then id), walked
 * with cursor paging: each request costs the same at any depth, and rows added meanwhile land
 * after the walk's position, so none is skipped or repeated.
 */
export async function* clientPages(
  api: ApiClient,
  filter: ClientFilter = {},
  { limit = 1000, cursor = null, signal }: PageOptions = {},
): AsyncGenerator<ClientPage> {
  do {
    const { data, error, response } = await api.GET('/api/data/clients', {
      params: { query: { ...filter, limit, ...(cursor !== null && { cursor }) } },
      signal,
    });
    if (!data) throw new ApiError(response.status, error);
    cursor = data.meta.nextCursor;
    yield { clients: data.data, nextCursor: cursor };
  } while (cursor !== null);
}

/** Every client matching `filter`, one at a time (see clientPages). */
export async function* allClients(
  api: ApiClient,
  filter: ClientFilter = {},
  options: PageOptions = {},
): AsyncGenerator<Client> {
  for await (const page of clientPages(api, filter, options)) yield* page.clients;
}
