import { IntegerFrom, WholeMilliseconds, WholeRequests } from './env-decorators';

/**
 * What one pod takes on at once, so that memory and the database pool stay within bounds
 * whatever clients do (docs/operations.md, Limits). Past a cap the answer is a 503 (or a 429
 * for one key's own excess) with Retry-After, never a queue that grows.
 */
export class LimitsEnv {
  // Requests being answered at once, probes and scrapes aside.
  @WholeRequests()
  MAX_REQUESTS_IN_FLIGHT = 256;

  // Requests of one API key being answered at once, so one key's slow requests cannot take
  // the database pool from the others.
  @WholeRequests()
  MAX_REQUESTS_PER_KEY = 32;

  // Long polls of the change feeds (requests with `wait`) at once, waiting or reading. They
  // count here, never against the two caps above, so consumers cannot shed other requests.
  @WholeRequests()
  MAX_WAITING_POLLS = 1000;

  // Of those, one API key's: so one key cannot take every waiting slot from the others.
  @WholeRequests()
  MAX_WAITING_POLLS_PER_KEY = 100;

  // Reads by long polls running at once (polls at one position share a read), handed fairly
  // between keys: the rest of the database pool stays with ordinary requests.
  @IntegerFrom(1, 1000)
  MAX_CONCURRENT_POLL_READS = 4;

  // The work that holds a pooled connection for long, each kind capped on its own: counts of
  // list totals, pages by number deep into a list, and renders of the List Links body.
  @IntegerFrom(1, 1000)
  MAX_CONCURRENT_COUNTS = 4;

  @IntegerFrom(1, 1000)
  MAX_CONCURRENT_DEEP_PAGES = 2;

  @IntegerFrom(1, 1000)
  MAX_CONCURRENT_LIST_RENDERS = 2;

  // The most rows a page by number may reach (page × limit): deeper, cursor paging costs the
  // same at any depth, where an offset reads every row before the page.
  @IntegerFrom(1000, 2147483647)
  MAX_PAGE_DEPTH = 100_000;

  // A response whose client takes none of its bytes for this long is cut.
  @WholeMilliseconds(1000)
  RESPONSE_WRITE_TIMEOUT_MS = 30_000;
}
