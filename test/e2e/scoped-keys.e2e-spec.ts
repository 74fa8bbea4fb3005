import request from 'supertest';
import { ApiKeyCommands, KeyScopeChange } from '../../src/api-keys/api-key-commands';
import { AUTH, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { Answer, feedPath, startApp, waitingPolls } from '../support/long-polls';
import { expectProblem } from '../support/problem';
import { waitFor } from '../support/wait-for';

const LINKS = ['link-a', 'link-b', 'link-c'];
const at = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
// Four clients a link, created in turn across the links.
const CLIENTS = Array.from({ length: 12 }, (_, n) => ({
  id: `client-${String(n).padStart(2, '0')}`,
  linkId: LINKS[n % 3],
  status: n % 2 ? 'new' : 'connected',
  createdAt: at(n),
  updatedAt: at(n + 20),
}));
const ofLinks = (...links: string[]) =>
  CLIENTS.filter(({ linkId }) => links.includes(linkId)).map(({ id }) => id);

// docs/api.md, "Scoped keys": what a key limited to operations or links sees.
describe('Scoped keys', () => {
  let t: TestApp;
  let keys: ApiKeyCommands;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  /** A new key with `scope`, once the app knows it (it re-reads its keys on a miss). */
  const keyWith = async (scope: KeyScopeChange) => {
    const { key } = await keys.create(`scoped ${JSON.stringify(scope)}`, null, scope);
    await waitFor(async () => (await call(key, '/api/data/links')).status !== 401, {
      what: 'the new key known',
    });
    return key;
  };
  const call = (key: string, path: string) => request(t.app.getHttpServer()).get(path).set(as(key));
  const ids = (body: { data: { id: string }[] }) => body.data.map(({ id }) => id);

  beforeAll(async () => {
    ({ t, get } = await startApp({ env: { KEY_CACHE_TTL_MS: '200' } }));
    keys = new ApiKeyCommands(t.dataSource);
    await insertLinks(
      t.dataSource,
      LINKS.map((id, n) => ({ id, createdAt: at(n), updatedAt: at(n + 40) })),
    );
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  describe('to operations', () => {
    it('answers an operation outside them 403, naming the scope it lacks, before a bad query', async () => {
      const key = await keyWith({ operations: ['links:read'] });
      await call(key, '/api/data/links').expect(200);
      for (const [path, scope] of [
        ['/api/data/clients?nope=1', 'clients:read'],
        ['/api/data/clients/client-00', 'clients:read'],
        ['/api/data/changes/clients', 'changes:read'],
        ['/api/data/changes/links?limit=0', 'changes:read'],
      ]) {
        const res = await call(key, path);
        expectProblem(res, {
          status: 403,
          title: 'Forbidden',
          detail: `This API key may not use this operation: its scopes lack ${scope}`,
        });
      }
    });

    it('still answers 401 first for a key that is not valid', async () => {
      await request(t.app.getHttpServer())
        .get('/api/data/clients')
        .set('Authorization', 'Bearer lc_nope')
        .expect(401);
    });
  });

  describe('to links', () => {
    let key: string;
    beforeAll(async () => (key = await keyWith({ links: ['link-a', 'link-c', 'link-unknown'] })));

    it('lists and gets only those links: another is the 404 of an unknown id', async () => {
      const list = await call(key, '/api/data/links').expect(200);
      expect(list.body).toEqual({
        data: [
          { id: 'link-a', createdAt: at(0), updatedAt: at(40) },
          { id: 'link-c', createdAt: at(2), updatedAt: at(42) },
        ],
        meta: { total: 2 },
      });
      await call(key, '/api/data/links/link-a').expect(200);
      const hidden = await call(key, '/api/data/links/link-b').expect(404);
      const unknown = await call(key, '/api/data/links/link-zz').expect(404);
      expect({ ...hidden.body, requestId: 0, instance: 0 }).toEqual({
        ...unknown.body,
        requestId: 0,
        instance: 0,
      });
    });

    it('lists, counts, pages and gets only the clients of those links', async () => {
      const visible = ofLinks('link-a', 'link-c');
      const page = await call(key, '/api/data/clients?limit=3&page=2').expect(200);
      expect(ids(page.body)).toEqual(visible.slice(3, 6));
      expect(page.body.meta).toMatchObject({ total: visible.length, totalPages: 3 });
      const connected = await call(key, '/api/data/clients?status=connected').expect(200);
      expect(connected.body.meta.total).toBe(
        CLIENTS.filter((c) => visible.includes(c.id) && c.status === 'connected').length,
      );
      expect((await call(key, '/api/data/clients?linkId=link-b').expect(200)).body.meta.total).toBe(
        0,
      );
      await call(key, '/api/data/clients/client-00').expect(200);
      await call(key, '/api/data/clients/client-01').expect(404);
    });

    it('walks every visible client by cursor, and refuses a cursor of another key', async () => {
      const walked: string[] = [];
      let cursor = '';
      do {
        const res = await call(key, `/api/data/clients?limit=3${cursor && `&cursor=${cursor}`}`);
        expect(res.status).toBe(200);
        walked.push(...ids(res.body));
        cursor = res.body.meta.nextCursor ? encodeURIComponent(res.body.meta.nextCursor) : '';
      } while (cursor);
      expect(walked).toEqual(ofLinks('link-a', 'link-c'));

      const theirs = await call(key, '/api/data/clients?limit=1').expect(200);
      const mine = await request(t.app.getHttpServer())
        .get('/api/data/clients?limit=1')
        .set(AUTH)
        .expect(200);
      const other = await keyWith({ links: ['link-a', 'link-c', 'link-unknown'] });
      for (const [who, cursorOf] of [
        [AUTH, theirs.body.meta.nextCursor],
        [as(key), mine.body.meta.nextCursor],
        [as(other), theirs.body.meta.nextCursor],
      ] as const) {
        const res = await request(t.app.getHttpServer())
          .get(`/api/data/clients?limit=1&cursor=${encodeURIComponent(cursorOf)}`)
          .set(who);
        expect(res.status).toBe(400);
        expect(res.body.errors[0].name).toBe('cursor');
      }
    });

    it('follows only those links in both feeds, with cursors of its own', async () => {
      const clients = await call(key, '/api/data/changes/clients?limit=100').expect(200);
      expect(ids(clients.body).sort()).toEqual(ofLinks('link-a', 'link-c').sort());
      const links = await call(key, '/api/data/changes/links').expect(200);
      expect(ids(links.body)).toEqual(['link-a', 'link-c']);
      const mine = await request(t.app.getHttpServer())
        .get('/api/data/changes/links')
        .set(AUTH)
        .expect(200);
      const reused = `/api/data/changes/links?cursor=${encodeURIComponent(mine.body.meta.nextCursor)}`;
      expect((await call(key, reused)).status).toBe(400);
    });

    it('never answers a 304 for another scope’s body', async () => {
      const everyone = await request(t.app.getHttpServer())
        .get('/api/data/links')
        .set(AUTH)
        .expect(200);
      const mine = await call(key, '/api/data/links')
        .set('If-None-Match', everyone.headers.etag)
        .expect(200);
      expect(mine.headers.etag).not.toBe(everyone.headers.etag);
      await call(key, '/api/data/links').set('If-None-Match', mine.headers.etag).expect(304);
    });

    it('wakes a long poll only for a change of its links', async () => {
      const caughtUp = (await get('/api/data/changes/clients?limit=1000', as(key))).body.meta
        .nextCursor;
      const answer = get(feedPath('clients', caughtUp, 'wait=20'), as(key));
      await waitingPolls(t, 1);
      await t.dataSource.query(`UPDATE clients SET status = 'new' WHERE id = 'client-01'`);
      await t.dataSource.query(`UPDATE clients SET status = 'new' WHERE id = 'client-00'`);
      const res = await answer;
      expect(ids(res.body)).toEqual(['client-00']);
    });

    it('sees what its links are now: a change of them applies to its next request', async () => {
      const narrowed = await keyWith({ links: ['link-a'] });
      expect((await call(narrowed, '/api/data/clients').expect(200)).body.meta.total).toBe(4);
      const { record } = (await keys.list()).find(({ links }) => links?.join() === 'link-a')!;
      await keys.scope(record.id, { links: [] });
      expect((await call(narrowed, '/api/data/clients').expect(200)).body.meta.total).toBe(0);
      expect((await call(narrowed, '/api/data/links').expect(200)).body).toEqual({
        data: [],
        meta: { total: 0 },
      });
      // Scoped no more: its next requests see every link once the app re-reads its keys.
      await keys.scope(record.id, { links: null });
      await waitFor(
        async () => (await call(narrowed, '/api/data/clients')).body.meta?.total === 12,
        { what: 'every client seen' },
      );
    });
  });
});
