import fc from 'fast-check';
import request from 'supertest';
import { ApiKeyCommands } from '../../src/api-keys/api-key-commands';
import { Operation, OPERATIONS } from '../../src/api-keys/key-scope';
import { FILTERABLE_STATUSES } from '../../src/clients/client-statuses';
import { createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { waitFor } from '../support/wait-for';

const LINKS = Array.from({ length: 6 }, (_, n) => `link-${n}`);
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const CLIENTS = Array.from({ length: 48 }, (_, n) => ({
  id: `client-${String(n).padStart(2, '0')}`,
  linkId: LINKS[(n * 7) % LINKS.length],
  status: ['new', 'connected', 'suspended'][n % 3],
  isDeleted: n % 5 === 0,
  createdAt: at(n),
  updatedAt: at(100 + ((n * 11) % 48)),
}));

interface Scope {
  /** Undefined: every operation. */
  operations?: Operation[];
  /** Undefined: every link; else only these (maybe none, maybe unknown ones). */
  links?: string[];
}

// Scopes drawn once (a key each, made before the runs): every run then reads as one of them.
const SCOPES: Scope[] = [
  {},
  { links: [] },
  { operations: [] },
  ...fc.sample(
    fc.record(
      {
        operations: fc.subarray([...OPERATIONS]),
        links: fc.subarray([...LINKS, 'link-unknown', 'link-other']),
      },
      { requiredKeys: [] },
    ),
    { numRuns: 40, seed: 20261206 },
  ),
];

type Call =
  | { kind: 'listLinks' }
  | { kind: 'getLink' | 'getClient'; id: string }
  | { kind: 'listClients'; filters: Record<string, string>; limit: number; page?: number }
  | { kind: 'walkClients' | 'walkClientFeed'; filters: Record<string, string>; limit: number }
  | { kind: 'walkLinkFeed'; limit: number };

const filters = fc.record(
  {
    linkId: fc.constantFrom(...LINKS, 'link-unknown'),
    status: fc.constantFrom(...FILTERABLE_STATUSES),
    isDeleted: fc.constantFrom('true', 'false'),
  },
  { requiredKeys: [] },
);
const calls: fc.Arbitrary<Call> = fc.oneof(
  fc.constant({ kind: 'listLinks' as const }),
  fc.record({ kind: fc.constant('getLink' as const), id: fc.constantFrom(...LINKS, 'link-x') }),
  fc.record({
    kind: fc.constant('getClient' as const),
    id: fc.constantFrom(...CLIENTS.map(({ id }) => id), 'client-x'),
  }),
  fc.record(
    {
      kind: fc.constant('listClients' as const),
      filters,
      limit: fc.integer({ min: 1, max: 20 }),
      page: fc.integer({ min: 1, max: 6 }),
    },
    { requiredKeys: ['kind', 'filters', 'limit'] },
  ),
  fc.record({
    kind: fc.constantFrom('walkClients' as const, 'walkClientFeed' as const),
    filters: filters.map(({ linkId }) => (linkId ? { linkId } : ({} as Record<string, string>))),
    limit: fc.integer({ min: 1, max: 15 }),
  }),
  fc.record({ kind: fc.constant('walkLinkFeed' as const), limit: fc.integer({ min: 1, max: 4 }) }),
);

const OPERATION_OF: Record<Call['kind'], Operation> = {
  listLinks: 'links:read',
  getLink: 'links:read',
  getClient: 'clients:read',
  listClients: 'clients:read',
  walkClients: 'clients:read',
  walkClientFeed: 'changes:read',
  walkLinkFeed: 'changes:read',
};

/** What a key of `scope` may see of the fixtures: the ids a complete read returns. */
function visible(scope: Scope, call: Call): string[] {
  const linkSeen = (link: string) => !scope.links || scope.links.includes(link);
  const matches = (client: (typeof CLIENTS)[number], given: Record<string, string>) =>
    linkSeen(client.linkId) &&
    (!given.linkId || client.linkId === given.linkId) &&
    (!given.status || client.status === given.status) &&
    (!given.isDeleted || String(client.isDeleted) === given.isDeleted);
  switch (call.kind) {
    case 'listLinks':
    case 'walkLinkFeed':
      return LINKS.filter(linkSeen);
    case 'getLink':
      return LINKS.includes(call.id) && linkSeen(call.id) ? [call.id] : [];
    case 'getClient':
      return CLIENTS.filter((c) => c.id === call.id && linkSeen(c.linkId)).map((c) => c.id);
    default:
      return CLIENTS.filter((client) => matches(client, call.filters)).map(({ id }) => id);
  }
}

// docs/api.md, "Scoped keys": whatever a key's scope and however it reads, no row outside its
// scope appears; every row inside it is reachable; a refusal is the documented status.
describe('Scoped keys, by property', () => {
  let t: TestApp;
  const keys = new Map<string, string>();

  beforeAll(async () => {
    t = await createTestApp({ env: { KEY_CACHE_TTL_MS: '100', COUNT_CACHE_TTL_MS: '0' } });
    await insertLinks(
      t.dataSource,
      LINKS.map((id, n) => ({ id, createdAt: at(n), updatedAt: at(200 + n) })),
    );
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  /** A key of `scope`, made once per scope and known to the app. */
  async function keyOf(scope: Scope): Promise<string> {
    const name = JSON.stringify(scope);
    let key = keys.get(name);
    if (key === undefined) {
      key = (await new ApiKeyCommands(t.dataSource).create(`p ${keys.size}`, null, scope)).key;
      keys.set(name, key);
      const probe = () => request(t.app.getHttpServer()).get('/api/data/links').set(auth(key!));
      await waitFor(async () => (await probe()).status !== 401, { what: 'the key known' });
    }
    return key;
  }
  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

  /** The ids `call` returns, walking to the end where it walks; or the refusal's status. */
  async function read(key: string, call: Call): Promise<string[] | number> {
    const get = (path: string) => request(t.app.getHttpServer()).get(path).set(auth(key));
    const query = (given: Record<string, string>) =>
      Object.entries(given)
        .map(([name, value]) => `&${name}=${value}`)
        .join('');
    switch (call.kind) {
      case 'listLinks':
      case 'getLink':
      case 'getClient': {
        const path =
          call.kind === 'listLinks'
            ? '/api/data/links'
            : `/api/data/${call.kind === 'getLink' ? 'links' : 'clients'}/${call.id}`;
        const res = await get(path);
        if (res.status === 404) return [];
        if (res.status !== 200) return res.status;
        return call.kind === 'listLinks'
          ? res.body.data.map((r: { id: string }) => r.id)
          : [res.body.id];
      }
      case 'listClients': {
        const res = await get(
          `/api/data/clients?limit=${call.limit}&page=${call.page ?? 1}${query(call.filters)}`,
        );
        if (res.status !== 200) return res.status;
        // The page's rows, and the whole list's size as its total says.
        return {
          ids: res.body.data.map((r: { id: string }) => r.id),
          total: res.body.meta.total,
        } as never;
      }
      default: {
        const path =
          call.kind === 'walkClients'
            ? '/api/data/clients'
            : call.kind === 'walkClientFeed'
              ? '/api/data/changes/clients'
              : '/api/data/changes/links';
        const given = 'filters' in call ? query(call.filters) : '';
        const ids: string[] = [];
        let cursor = '';
        for (let pages = 0; pages < 100; pages++) {
          const res = await get(`${path}?limit=${call.limit}${given}${cursor}`);
          if (res.status !== 200) return res.status;
          ids.push(...res.body.data.map((r: { id: string }) => r.id));
          const next = res.body.meta.nextCursor;
          const more = call.kind === 'walkClients' ? next !== null : res.body.meta.hasMore;
          if (!more) return ids;
          cursor = `&cursor=${encodeURIComponent(next)}`;
        }
        throw new Error('a walk that does not end');
      }
    }
  }

  it('never shows a row outside the scope, reaches every row in it, refuses with 403 alone', async () => {
    for (const scope of SCOPES) await keyOf(scope);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SCOPES), calls, async (scope, call) => {
        const key = await keyOf(scope);
        const answer = await read(key, call);
        const allowed = !scope.operations || scope.operations.includes(OPERATION_OF[call.kind]);
        if (!allowed) return expect(answer).toBe(403);
        const expected = visible(scope, call);
        if (call.kind === 'listClients') {
          const { ids, total } = answer as unknown as { ids: string[]; total: number };
          const start = ((call.page ?? 1) - 1) * call.limit;
          expect(ids).toEqual(expected.slice(start, start + call.limit));
          expect(total).toBe(expected.length);
        } else if (call.kind === 'walkClientFeed' || call.kind === 'walkLinkFeed') {
          // Feed order is updatedAt's: the same rows, each once.
          expect([...(answer as string[])].sort()).toEqual([...expected].sort());
        } else {
          expect(answer).toEqual(expected);
        }
      }),
      { numRuns: Number(process.env.SCOPE_PROPERTY_RUNS ?? 2000) },
    );
  }, 300_000);
});
