import { Logger } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Client as PgClient } from 'pg';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, configureApp } from '../../src/app.setup';
import { STANDBY_AS_PRIMARY } from '../../src/database/standby-as-primary';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { describeWith } from '../support/optional-program';
import { testClient } from '../support/pg-client';
import { ReplicaCluster } from '../support/replica-cluster';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';
import { metric } from '../support/long-polls';
import { freePort } from '../../src/dev/free-port';

// A real primary and a streaming replica made with pg_basebackup. Replay on
// the replica is paused to show which server answers: the API keeps seeing the old data.
describeWith(['pg_basebackup'], 'Read replicas (DATABASE_REPLICA_URLS)', () => {
  const cluster = new ReplicaCluster();
  const database = new URL(process.env.DATABASE_URL as string).pathname.slice(1);
  let t: TestApp;
  let replica: PgClient;
  const get = (path: string) => request(t.app.getHttpServer()).get(path).set(AUTH);
  const linkIds = async () =>
    ((await get('/api/data/links').expect(200)).body.data as { id: string }[]).map((l) => l.id);
  const until = (check: () => Promise<boolean>) =>
    waitFor(check, { what: 'the replica to catch up', intervalMs: 100 });

  beforeAll(async () => {
    await cluster.start();
    // The suite's database lives on this test's own primary (created there by createTestApp).
    process.env.TEST_SERVER_URL = cluster.url(cluster.primaryPort, 'postgres');
    process.env.DATABASE_URL = cluster.url(cluster.primaryPort, database);
    const replicaUrl = cluster.url(cluster.replicaPort, database);
    t = await createTestApp({
      env: { DATABASE_REPLICA_URLS: replicaUrl, HEALTH_TIMEOUT_MS: '1000' },
    });
    replica = testClient({ connectionString: replicaUrl });
    await replica.connect();
  }, 60000);

  afterAll(async () => {
    await replica?.end().catch(() => undefined);
    await t?.close();
    await cluster.stop();
  });

  it("streams: the replica is in recovery and has the primary's rows", async () => {
    expect((await replica.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(true);
    await insertLinks(t.dataSource, [{ id: 'link-a' }]);
    await until(
      async () => (await replica.query(`SELECT 1 FROM links WHERE id = 'link-a'`)).rowCount === 1,
    );
    expect(await linkIds()).toEqual(['link-a']);
  });

  it('serves every read from the replica', async () => {
    await replica.query('SELECT pg_wal_replay_pause()');
    try {
      await insertLinks(t.dataSource, [{ id: 'link-b' }]);
      await insertClients(t.dataSource, [{ id: 'client-b', linkId: 'link-a', status: 'new' }]);
      // On the primary, not on the paused replica, so not in the API's answers.
      expect((await t.dataSource.query(`SELECT id FROM links ORDER BY id`)).length).toBe(2);
      expect(await linkIds()).toEqual(['link-a']);
      await get('/api/data/links/link-b').expect(404);
      await get('/api/data/links/link-a').expect(200);
      expect((await get('/api/data/clients').expect(200)).body.meta.total).toBe(0);
      const sessions = await replica.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'links-clients-api'`,
      );
      expect(sessions.rows[0].n).toBeGreaterThan(0);
    } finally {
      await replica.query('SELECT pg_wal_replay_resume()');
    }
    await until(async () => (await linkIds()).includes('link-b'));
  });

  /** Another app of the real module, whose DATABASE_URL (the primary's) is `primaryUrl`. */
  async function startApp(primaryUrl: string): Promise<NestExpressApplication> {
    const suiteUrl = process.env.DATABASE_URL;
    process.env.DATABASE_URL = primaryUrl;
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [await AppModule.forRoot()],
      }).compile();
      const app = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
      configureApp(app);
      return await app.init().catch(async (error: unknown) => {
        await app.close();
        throw error;
      });
    } finally {
      process.env.DATABASE_URL = suiteUrl;
    }
  }

  it('refuses to start with a standby as the primary: its feeds could skip changes', async () => {
    await expect(startApp(cluster.url(cluster.replicaPort, database))).rejects.toThrow(
      STANDBY_AS_PRIMARY,
    );
  });

  it("answers the feeds 503 while the primary's address reaches a standby, and 200 once it reaches the primary again", async () => {
    const proxy = new TcpProxy('127.0.0.1', cluster.primaryPort);
    await proxy.up();
    const app = await startApp(`postgres://postgres@127.0.0.1:${proxy.port}/${database}`);
    try {
      const feed = () => request(app.getHttpServer()).get('/api/data/changes/links').set(AUTH);
      await feed().expect(200);
      // A failover behind one address: the connections drop, new ones reach the standby.
      await proxy.down();
      proxy.targetPort = cluster.replicaPort;
      await proxy.up();
      await waitFor(async () => (await feed()).status === 503, {
        what: 'the feed to refuse the standby',
      });
      const error = jest.spyOn(Logger.prototype, 'error');
      const refused = await feed().expect(503);
      expect(refused.headers['retry-after']).toBeDefined();
      await feed().expect(503);
      // Said once, when the standby was first met, not on every poll.
      expect(error.mock.calls.filter(([message]) => message === STANDBY_AS_PRIMARY)).toEqual([]);
      error.mockRestore();
      // The address moves back (a switchover's end): no connection stayed on the standby.
      await proxy.down();
      proxy.targetPort = cluster.primaryPort;
      await proxy.up();
      await waitFor(async () => (await feed()).status === 200, {
        what: 'the feed to answer from the primary again',
      });
    } finally {
      await app.close();
      await proxy.down();
    }
  });

  it('takes a stopped replica out of rotation within seconds, reads from the primary meanwhile, and puts it back', async () => {
    const up = async () => metric(t, 'database_replica_up', { replica: 'replica-0' });
    await waitFor(async () => (await up()) === 1, { what: 'the replica in rotation' });
    await replica.end();
    await cluster.stopReplica();
    const stoppedAt = performance.now();
    await waitFor(async () => (await up()) === 0, { what: 'the replica out of rotation' });
    const outAfter = performance.now() - stoppedAt;
    // Every read from the primary, which has this link; readiness unaffected.
    await insertLinks(t.dataSource, [{ id: 'link-while-down' }]);
    for (let n = 0; n < 20; n++) expect(await linkIds()).toContain('link-while-down');
    const ready = await request(t.app.getHttpServer()).get('/health/ready').expect(200);
    expect(Object.keys(ready.body.details)).toEqual(['shutdown', 'database']);

    await cluster.startReplica();
    const startedAt = performance.now();
    await waitFor(async () => (await up()) === 1, { what: 'the replica back in rotation' });
    process.stderr.write(
      `replica windows (s): ${JSON.stringify({ out: outAfter / 1000, back: (performance.now() - startedAt) / 1000 })}\n`,
    );
    replica = testClient({ connectionString: cluster.url(cluster.replicaPort, database) });
    await replica.connect();
    await until(async () => {
      await linkIds();
      const sessions = await replica.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'links-clients-api'`,
      );
      return sessions.rows[0].n > 0;
    });
  });

  it('starts with a replica that does not answer, and reads from the primary', async () => {
    const closed = await freePort();
    process.env.DATABASE_REPLICA_URLS = `postgres://postgres@127.0.0.1:${closed}/${database}`;
    const app = await startApp(process.env.DATABASE_URL as string);
    try {
      expect(await metric({ app } as TestApp, 'database_replica_up')).toBe(0);
      const res = await request(app.getHttpServer()).get('/api/data/links').set(AUTH).expect(200);
      expect(res.body.data.length).toBeGreaterThan(0);
    } finally {
      delete process.env.DATABASE_REPLICA_URLS;
      await app.close();
    }
  });
});
