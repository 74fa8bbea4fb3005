import { ApiClient, ApiError, Client, Link } from './client.js';
import { sleep } from './retrying-fetch.js';

/** The two change feeds: `/api/data/changes/clients` and `/api/data/changes/links`. */
export type Feed = 'clients' | 'links';
export type FeedRow<F extends Feed> = F extends 'clients' ? Client : Link;

export interface ChangePage<F extends Feed> {
  /** Changed rows, by updatedAt then id; upsert them by `id`. */
  rows: FeedRow<F>[];
  /** Never null: store it with the rows, and continue (or resume) from it. */
  nextCursor: string;
  /** true: more rows are ready now; false: caught up. */
  hasMore: boolean;
}

export interface ChangeOptions<F extends Feed> {
  /** Continue after this position (a nextCursor of the same feed and linkId); omitted: a full copy. */
  cursor?: string | null;
  /** Client feed only: the clients of this link. */
  linkId?: F extends 'clients' ? string : never;
  /** Rows per request, 1..1000 (default 1000: fewest requests). */
  limit?: number;
  /** Long polling: when caught up, the server holds the request up to this many seconds (1..25). */
  wait?: number;
  signal?: AbortSignal;
}

export interface FollowOptions<F extends Feed> extends Omit<ChangeOptions<F>, 'wait'> {
  /**
   * Once caught up, long-poll: each poll waits on the server up to this many seconds (1..25,
   * default 25) and is answered as soon as a change is. 0: short polls, spaced by the delays.
   */
  waitSeconds?: number;
  /** Short polls: the wait after a caught-up poll that brought rows (default 1000 ms). */
  minDelayMs?: number;
  /**
   * Short polls: the wait doubles with each empty poll in a row, up to this (default 30000 ms).
   * Long polls wait so only when the server answers one empty before its time (a pod shutting down).
   */
  maxDelayMs?: number;
  /** Return after this many empty caught-up polls in a row (default: follow until aborted). */
  maxIdlePolls?: number;
}

/** One page of a feed after `cursor`. */
export async function changePage<F extends Feed>(
  api: ApiClient,
  feed: F,
  { cursor = null, linkId, limit = 1000, wait, signal }: ChangeOptions<F> = {},
): Promise<ChangePage<F>> {
  const query = { limit, ...(cursor !== null && { cursor }), ...(wait !== undefined && { wait }) };
  // Two literal paths, so that each call is checked against its own operation in the schema.
  const { data, error, response } =
    feed === 'clients'
      ? await api.GET('/api/data/changes/clients', {
          params: { query: { ...query, ...(linkId !== undefined && { linkId }) } },
          signal,
        })
      : await api.GET('/api/data/changes/links', { params: { query }, signal });
  if (!data) throw new ApiError(response.status, error);
  const { nextCursor, hasMore } = data.meta;
  return { rows: data.data as FeedRow<F>[], nextCursor, hasMore };
}

/**
 * The pages of a feed from `cursor` (the beginning when omitted: a full copy) until caught
 * up: the last page yielded has `hasMore: false`, and may be empty.
 */
export async function* changePages<F extends Feed>(
  api: ApiClient,
  feed: F,
  options: ChangeOptions<F> = {},
): AsyncGenerator<ChangePage<F>> {
  let cursor = options.cursor ?? null;
  for (;;) {
    const page = await changePage(api, feed, { ...options, cursor });
    cursor = page.nextCursor;
    yield page;
    if (!page.hasMore) return;
  }
}

/**
 * Copy, then follow: every page of a feed from `cursor`, then, once caught up, long polls of
 * `waitSeconds` (25): each is answered as soon as a change is served, or empty at its end, and
 * the next follows at once. A full page is followed at once. With `waitSeconds: 0`, short
 * polls after a wait that starts at `minDelayMs` and doubles with each empty poll in a row (up
 * to `maxDelayMs`), so an idle feed costs little. Ends after `maxIdlePolls` empty polls in a
 * row, or throws the signal's reason when it is aborted.
 */
export async function* followChanges<F extends Feed>(
  api: ApiClient,
  feed: F,
  options: FollowOptions<F> = {},
): AsyncGenerator<ChangePage<F>> {
  const { waitSeconds = 25, minDelayMs = 1000, maxDelayMs = 30_000, signal } = options;
  const { maxIdlePolls = Infinity } = options;
  let cursor = options.cursor ?? null;
  let idle = 0;
  // The first request copies at once; the polls once caught up wait on the server.
  let wait: number | undefined;
  for (;;) {
    const sentAt = Date.now();
    const page = await changePage(api, feed, { ...options, cursor, wait });
    cursor = page.nextCursor;
    yield page;
    if (page.hasMore) continue;
    idle = page.rows.length === 0 ? idle + 1 : 0;
    if (idle >= maxIdlePolls) return;
    const delayMs = Math.min(maxDelayMs, minDelayMs * 2 ** Math.max(0, idle - 1));
    // An empty long poll answered well before its time (a pod shutting down) is not repeated
    // at once.
    const isEarly = wait !== undefined && idle > 0 && Date.now() - sentAt < (wait - 1) * 1000;
    if (waitSeconds === 0 || isEarly) await sleep(delayMs, signal);
    else wait = waitSeconds;
  }
}
