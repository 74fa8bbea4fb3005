import request from 'supertest';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertLinks } from '../support/fixtures';
import { describeWith } from '../support/optional-program';
import { TlsServer } from '../support/tls-server';

const IS_TLS = 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()';

// sslmode in DATABASE_URL with libpq's meaning, against a real PostgreSQL with TLS whose
// certificate names localhost only and comes from a CA of the test's own.
describeWith(['openssl'], 'TLS to the database (sslmode)', () => {
  const server = new TlsServer();
  const database = new URL(process.env.DATABASE_URL as string).pathname.slice(1);

  /** Connects as the API would; resolves with whether the session is encrypted. */
  async function isEncrypted(host: string, query: string): Promise<boolean> {
    const dataSource = new DataSource(
      dataSourceOptions({ url: server.url(host, 'postgres', query), timeoutMs: 5000 }),
    );
    await dataSource.initialize();
    try {
      return (await dataSource.query<{ ssl: boolean }[]>(IS_TLS))[0].ssl;
    } finally {
      await dataSource.destroy();
    }
  }

  beforeAll(() => server.start(), 60000);
  afterAll(() => server.stop());

  it.each([
    ['disable', 'localhost', '?sslmode=disable', false],
    ['require: encrypted, no certificate check', '127.0.0.1', '?sslmode=require', true],
    [
      'verify-ca: the chain, not the host name',
      '127.0.0.1',
      '?sslmode=verify-ca&sslrootcert=CA',
      true,
    ],
    [
      'verify-full: the chain and the host name',
      'localhost',
      '?sslmode=verify-full&sslrootcert=CA',
      true,
    ],
  ])('connects with %s', async (_mode, host, query, encrypted) => {
    expect(await isEncrypted(host, query.replace('CA', server.ca))).toBe(encrypted);
  });

  it.each([
    [
      'verify-full, wrong host',
      '127.0.0.1',
      '?sslmode=verify-full&sslrootcert=CA',
      /does not match/,
    ],
    [
      'verify-full, wrong CA',
      'localhost',
      '?sslmode=verify-full&sslrootcert=OTHER',
      /self.signed|unable to verify/,
    ],
    [
      'verify-full, no CA given (public CAs)',
      'localhost',
      '?sslmode=verify-full',
      /self.signed|unable to verify/,
    ],
    [
      'verify-ca, wrong CA',
      '127.0.0.1',
      '?sslmode=verify-ca&sslrootcert=OTHER',
      /self.signed|unable to verify/,
    ],
    [
      'require with a CA checks the chain',
      '127.0.0.1',
      '?sslmode=require&sslrootcert=OTHER',
      /self.signed|unable to verify/,
    ],
  ])('refuses %s', async (_mode, host, query, error) => {
    const url = query.replace('OTHER', server.otherCa).replace('CA', server.ca);
    await expect(isEncrypted(host, url)).rejects.toThrow(error);
  });

  describe('the API over TLS, primary and replica', () => {
    let t: TestApp;

    beforeAll(async () => {
      process.env.TEST_SERVER_URL = server.url('localhost', 'postgres');
      process.env.DATABASE_URL = server.url('localhost', database);
      t = await createTestApp({
        env: {
          DATABASE_REPLICA_URLS: server.url('127.0.0.1', database, '?sslmode=require'),
        },
        appDatabaseUrl: server.url(
          'localhost',
          database,
          `?sslmode=verify-full&sslrootcert=${server.ca}`,
        ),
      });
      await insertLinks(t.dataSource, [{ id: 'link-a' }]);
    }, 60000);

    afterAll(() => t?.close());

    it('serves requests, every one of its connections encrypted', async () => {
      const res = await request(t.app.getHttpServer()).get('/api/data/links').set(AUTH).expect(200);
      expect(res.body.data.map((l: { id: string }) => l.id)).toEqual(['link-a']);
      await request(t.app.getHttpServer()).get('/health/ready').expect(200);
      const sessions = await t.dataSource.query<{ ssl: boolean }[]>(
        `SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
         WHERE a.application_name = 'links-clients-api' AND a.pid <> pg_backend_pid()`,
      );
      expect(sessions.length).toBeGreaterThanOrEqual(2);
      expect(sessions.every((s) => s.ssl)).toBe(true);
    });
  });
});
