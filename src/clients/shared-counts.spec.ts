import { SharedRedis } from '../redis/shared-redis';
import { SharedCounts } from './shared-counts';

const TTL_MS = 5000;
const NOW = 1_000_000;

/** SharedCounts on a Redis that holds `stored` (a total and its PTTL): what it serves. */
async function servedFrom(stored: [unknown, number], atLeast = 0) {
  const evals: unknown[][] = [];
  const redis = {
    eval: jest.fn(async (_script: string, _keys: number, ...args: unknown[]) => {
      evals.push(args);
      return evals.length === 1 ? ['total', NOW, ...stored] : 1;
    }),
  };
  const shared = {
    key: (name: string) => name,
    run: (work: (r: typeof redis) => Promise<unknown>) => work(redis),
  } as unknown as SharedRedis;
  const count = jest.fn(async () => 42);
  const counts = new SharedCounts(shared, TTL_MS, () => NOW);
  const served = await counts.fetch('k', count, atLeast);
  // The store after a count: the total, then Redis's time before it, the TTL and the token.
  const storedAgain = evals[1]?.slice(2, 5);
  return { served, counted: count.mock.calls.length, storedAgain };
}

describe('SharedCounts', () => {
  it('serves a stored count that expires within the TTL, counting nothing', async () => {
    expect(await servedFrom(['7', 1200])).toEqual({
      served: { total: 7, expiresAt: NOW + 1200 },
      counted: 0,
      storedAgain: undefined,
    });
    expect((await servedFrom(['0', TTL_MS])).served.total).toBe(0);
  });

  // Redis is shared: whatever another writer left there must not reach a response.
  it.each([
    ['not a number', 'null', 1000],
    ['negative', '-5', 1000],
    ['beyond a safe integer', '1e+308', 1000],
    ['a fraction', '12.5', 1000],
    ['empty', '', 1000],
    ['beyond 2^53', '9007199254740993', 1000],
    ['without an expiry', '7', -1],
    ['expiring beyond the TTL', '7', TTL_MS + 1],
  ])(
    'counts instead of serving a total %s, and stores the count in its place',
    async (_, total, pttl) => {
      expect(await servedFrom([total, pttl])).toEqual({
        served: { total: 42, expiresAt: NOW + TTL_MS },
        counted: 1,
        storedAgain: ['42', String(NOW), String(TTL_MS)],
      });
    },
  );

  it('counts instead of serving a total below the rows the request has seen', async () => {
    expect((await servedFrom(['0', 1000], 3)).counted).toBe(1);
    expect((await servedFrom(['3', 1000], 3)).counted).toBe(0);
  });
});
