import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseEnv } from '../../src/config/database.env';
import { selectOne } from '../../src/database/broken-connection';
import { DatabasePools } from '../../src/database/pools';
import { DatabasePing } from '../../src/health/database-ping';
import { testClient, testPool } from '../support/pg-client';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

// pg emits 'error' on a connection that breaks while checked out: unheard, the process ends
// (an uncaught exception, which fails the running test). Each case breaks one during its
// statement.
describe('A connection that breaks while its statement runs', () => {
  // The server's own database: these statements need no tables.
  const directUrl = new URL(process.env.TEST_SERVER_URL as string);
  const proxy = new TcpProxy(directUrl.hostname, Number(directUrl.port || 5432));
  let viaProxy: string;
  let pool: Pool | undefined;

  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation());
  afterAll(() => jest.restoreAllMocks());

  beforeEach(async () => {
    // Every packet, either way, held long enough to cut the connection once the client sent its
    // statement (the login's round trip too: about a second a case). A fresh port each time.
    Object.assign(proxy, { silent: false, delayMs: 500, sentToTarget: '', port: 0 });
    await proxy.up();
    const url = new URL(directUrl);
    url.port = String(proxy.port);
    viaProxy = url.toString();
  });

  afterEach(async () => {
    await proxy.down();
    await pool?.end();
    pool = undefined;
  });

  /** Closes every connection once the client sent `statement` (held by the proxy, then dropped). */
  async function cutOnceSent(statement: string): Promise<void> {
    await waitFor(() => proxy.sentToTarget.includes(statement), {
      what: `${statement} to be sent`,
      intervalMs: 5,
    });
    proxy.silent = true;
    await proxy.down();
  }

  function poolViaProxy(): Pool {
    pool = testPool({ connectionString: viaProxy, max: 1 });
    return pool;
  }

  it('fails the replica check (selectOne), not the process', async () => {
    const checked = selectOne(poolViaProxy(), 10000);
    await cutOnceSent('SELECT 1');
    await expect(checked).rejects.toThrow(/Connection terminated/);
  });

  it('fails the readiness ping, not the process', async () => {
    const ping = new DatabasePing('database', { connectionString: viaProxy }, 10000);
    try {
      const checked = ping.check();
      await cutOnceSent('SELECT 1');
      expect((await checked).isUp).toBe(false);
    } finally {
      await ping.close();
    }
  });

  it("fails a new primary connection's check for a standby, not the process", async () => {
    const primary = poolViaProxy();
    const pools = new DatabasePools(
      { driver: { master: primary } } as unknown as DataSource,
      Object.assign(new DatabaseEnv(), { DATABASE_REPLICA_URLS: [] }),
    );
    const connected = new Promise<Error | undefined>((resolve) =>
      pools.connect('primary', (error, _connection, release) => {
        release?.();
        resolve(error);
      }),
    );
    await cutOnceSent('pg_is_in_recovery');
    expect((await connected)?.message).toMatch(/Connection terminated/);
  });

  // The tests' own connections (test/support/pg-client): one that a failover or a dropped
  // database breaks fails its statement, not the whole file around the test.
  it("fails a test's own statement (testClient), not the file", async () => {
    const client = testClient({ connectionString: viaProxy });
    await client.connect();
    const answered = client.query('SELECT 1');
    await cutOnceSent('SELECT 1');
    await expect(answered).rejects.toThrow(/Connection terminated/);
    await client.end();
  });
});
