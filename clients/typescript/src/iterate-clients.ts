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
  /**
   * How many clients match the filter, on the first page of a walk started without a cursor
   * (counted when the walk began, up to COUNT_CACHE_TTL_MS old); undefined on the pages after
   * a cursor, which carry no total.
   */
  total?: number;
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
    const total = 'total' in data.meta ? data.meta.total : undefined;
    yield { clients: data.data, nextCursor: cursor, ...(total !== undefined && { total }) };
  } while (cursor !== null);
}

/** The clients of a walk, one at a time, and the walk's total once its first page is read. */
export interface ClientWalk extends AsyncGenerator<Client> {
  /**
   * The first page's total (see ClientPage): set before the first client is yielded, with no
   * request of its own; undefined for a walk started from a cursor.
   */
  readonly total: number | undefined;
}

/** Every client matching `filter`, one at a time (see clientPages), with the list's total. */
export function allClients(
  api: ApiClient,
  filter: ClientFilter = {},
  options: PageOptions = {},
): ClientWalk {
  const state: { total: number | undefined } = { total: undefined };
  async function* clients(): AsyncGenerator<Client> {
    for await (const page of clientPages(api, filter, options)) {
      state.total ??= page.total;
      yield* page.clients;
    }
  }
  const walk = clients();
  Object.defineProperty(walk, 'total', { get: () => state.total, enumerable: true });
  return walk as ClientWalk;
}
