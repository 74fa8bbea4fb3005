import { dataSourceOptions } from './data-source';

describe('dataSourceOptions', () => {
  // pg's query_timeout arms a timer per query whose closure holds the query, and with it every
  // row the query receives: under a small heap, list pages' rows then outlived young
  // collections and the heap bound cost a third of their throughput (docs/performance.md).
  // DatabaseReader bounds each query instead, with no timer per query beyond its deadline.
  it('bounds waits and statements by DATABASE_TIMEOUT_MS, with no read timer per query', () => {
    const { extra } = dataSourceOptions({ url: 'postgres://api@db/app', timeoutMs: 5000 }) as {
      extra: Record<string, unknown>;
    };
    expect(extra).toMatchObject({ connectionTimeoutMillis: 5000, statement_timeout: 5000 });
    expect(extra).not.toHaveProperty('query_timeout');
  });
});
