import request from 'supertest';
import { DatabaseReader } from '../../src/database/database-reader';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { describeWith } from '../support/optional-program';
import {
  Answer,
  caughtUp,
  feedPath,
  metric,
  pause,
  pollReads,
  pollReadsSince,
  startApp,
  waitingPolls,
} from '../support/long-polls';
import { PgBouncer } from '../support/pgbouncer';

const LINKS = ['link-a', 'link-b', 'link-c'];
const CLIENTS = LINKS.flatMap((linkId, i) =>
  [1, 2].map((n) => ({ id: `client-${i}-${n}`, linkId, status: n === 1 ? 'new' : 'active' })),
);

// Every endpoint, many times at once: with a pool of 2 server connections behind 10 client
// connections, consecutive transactions of one client land on different server connections.
function burst(t: TestApp) {
  const paths = [
    '/api/data/links',
    '/api/data/links/link-b',
    '/api/data/clients?limit=2',
    '/api/data/clients?linkId=link-c',
    '/api/data/clients/client-1-2',
    '/health/ready',
  ];
  return Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      request(t.app.getHttpServer())
        .get(paths[i % paths.length])
        .set(AUTH),
    ),
  );
}

// Debian's PgBouncer 1.18 in transaction mode: it keeps no prepared statement across
// transactions (1.21 added that) and refuses unknown startup parameters; the API sends one,
// statement_timeout, which it is told to ignore.
describeWith(['pgbouncer'], 'Through PgBouncer in transaction mode', () => {
  describe.each([{ preparedStatements: 'false' }, { preparedStatements: 'true' }])(
    'DATABASE_PREPARED_STATEMENTS=$preparedStatements',
    ({ preparedStatements }) => {
      const serverUrl = process.env.DATABASE_URL as string;
      const bouncer = new PgBouncer(serverUrl, {
        poolSize: 2,
        ignoreStartupParameters: ['statement_timeout'],
      });
      let t: TestApp;

      beforeAll(async () => {
        await bouncer.start();
        t = await createTestApp({
          env: { DATABASE_PREPARED_STATEMENTS: preparedStatements },
          appDatabaseUrl: bouncer.url(serverUrl),
        });
        await insertLinks(
          t.dataSource,
          LINKS.map((id) => ({ id })),
        );
        await insertClients(t.dataSource, CLIENTS);
      }, 60000);

      afterAll(async () => {
        await t?.close();
        await bouncer.stop();
        process.env.DATABASE_URL = serverUrl;
      });

      if (preparedStatements === 'false') {
        it('answers every endpoint correctly under concurrency', async () => {
          for (let round = 0; round < 3; round++) {
            const responses = await burst(t);
            expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
            const [links, link, page, byLink, client] = responses.map((r) => r.body);
            expect(links.data.map((l: { id: string }) => l.id)).toEqual(LINKS);
            expect(link.id).toBe('link-b');
            expect(page).toMatchObject({ meta: { total: 6 }, data: [{}, {}] });
            expect(byLink.data.map((c: { id: string }) => c.id)).toEqual([
              'client-2-1',
              'client-2-2',
            ]);
            expect(client).toMatchObject({ id: 'client-1-2', linkId: 'link-b', status: 'active' });
          }
        });

        it('sends no startup option PgBouncer refuses (only statement_timeout is ignored)', async () => {
          const rows = await t.app
            .get(DatabaseReader)
            .query<{ n: number }[]>('SELECT $1::int AS n', [7]);
          expect(rows).toEqual([{ n: 7 }]);
        });
      } else {
        it('fails: named statements are missing on, or clash with, the next server connection', async () => {
          const reader = t.app.get(DatabaseReader);
          const results = await Promise.allSettled(
            Array.from({ length: 60 }, (_, i) =>
              reader.query(`SELECT $1::int AS n, ${i % 3}`, [i], { prepared: true }),
            ),
          );
          const messages = results.flatMap((r) =>
            r.status === 'rejected' ? [(r.reason as Error).message] : [],
          );
          expect(messages.length).toBeGreaterThan(0);
          expect(messages.join('\n')).toMatch(
            /prepared statement "api_\d+" (does not exist|already exists)/,
          );
          const statuses = (await burst(t)).map((r) => r.status);
          expect(statuses).toContain(500);
        });
      }
    },
  );
});

// docs/operations.md, PgBouncer: LISTEN needs a session of its own, which a transaction-mode
// pooler does not keep; the listener connects directly, or is off and waiting polls re-check.
describeWith(['pgbouncer'], 'Long polling through PgBouncer in transaction mode', () => {
  const serverUrl = process.env.DATABASE_URL as string;
  describe.each([
    { listener: 'direct', listenUrl: serverUrl, isUp: 1 },
    { listener: 'off', listenUrl: 'off', isUp: 0 },
  ])('DATABASE_LISTEN_URL: $listener', ({ listenUrl, isUp }) => {
    const bouncer = new PgBouncer(serverUrl, {
      poolSize: 2,
      ignoreStartupParameters: ['statement_timeout'],
    });
    let t: TestApp;
    let get: (path: string) => Promise<Answer>;

    beforeAll(async () => {
      await bouncer.start();
      ({ t, get } = await startApp({
        env: { DATABASE_PREPARED_STATEMENTS: 'false', DATABASE_LISTEN_URL: listenUrl },
        appDatabaseUrl: bouncer.url(serverUrl),
      }));
      await insertLinks(t.dataSource, [{ id: 'link-a' }]);
    }, 60000);

    afterAll(async () => {
      await t?.close();
      await bouncer.stop();
    });

    it('answers a waiting poll with a committed change', async () => {
      expect(await metric(t, 'change_feed_listener_up')).toBe(isUp);
      const cursor = await caughtUp(get, 'links');
      const answer = get(feedPath('links', cursor, 'wait=10'));
      await waitingPolls(t, 1);
      await pause(1200);
      const before = await pollReads(t);
      await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
      expect((await answer).body.data.map((row) => row.id)).toEqual(['link-a']);
      // Woken by the notification in one read, or, without a listener, by the next re-checks.
      const { notification, interval } = await pollReadsSince(t, before);
      if (isUp) expect({ notification, interval }).toEqual({ notification: 1, interval: 0 });
      else {
        expect(notification).toBe(0);
        expect(interval).toBeGreaterThanOrEqual(1);
        expect(interval).toBeLessThanOrEqual(2);
      }
    });
  });
});
