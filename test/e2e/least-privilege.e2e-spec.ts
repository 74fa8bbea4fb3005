import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { Client as PgClient } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyCommands } from '../../src/api-keys/api-key-commands';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, configureApp } from '../../src/app.setup';
import { standaloneDataSource } from '../../src/standalone-data-source';
import { describeWith, programPath } from '../support/optional-program';
import { onTestServer } from '../support/database';
import { insertClients, insertLinks } from '../support/fixtures';
import { testClient } from '../support/pg-client';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
const ROLES_SQL = join(__dirname, '../../deploy/sql/roles.sql');

// The documented steps with deploy/sql/roles.sql: roles, migrations as the owner, grants;
// then the whole API runs as the restricted role.
describeWith(
  ['psql'],
  'Least privilege: the API as links_clients_api, migrations as the owner',
  () => {
    const suffix = randomBytes(4).toString('hex');
    const owner = { name: `lc_owner_${suffix}`, password: randomBytes(12).toString('hex') };
    const api = { name: `lc_api_${suffix}`, password: randomBytes(12).toString('hex') };
    // A system that writes the tables, named to roles.sql, and a role that is not.
    const writer = { name: `lc_writer_${suffix}`, password: randomBytes(12).toString('hex') };
    const stranger = { name: `lc_other_${suffix}`, password: randomBytes(12).toString('hex') };
    const adminUrl = process.env.DATABASE_URL as string;
    const as = (role: { name: string; password: string }) => {
      const url = new URL(adminUrl);
      url.username = role.name;
      url.password = role.password;
      return url.toString();
    };
    const roles = (variables: Record<string, string>) =>
      run(programPath('psql'), [
        adminUrl,
        '-q',
        ...Object.entries({ owner_role: owner.name, api_role: api.name, ...variables }).flatMap(
          ([name, value]) => ['-v', `${name}=${value}`],
        ),
        '-f',
        ROLES_SQL,
      ]);
    let admin: DataSource;
    let app: NestExpressApplication;
    let key: string;
    const get = (path: string) =>
      request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${key}`).expect(200);

    beforeAll(async () => {
      await onTestServer(`CREATE DATABASE "${new URL(adminUrl).pathname.slice(1)}"`);
      for (const role of [writer, stranger])
        await onTestServer(`CREATE ROLE ${role.name} LOGIN PASSWORD '${role.password}'`);
      await roles({ owner_password: owner.password, api_password: api.password });
      const migrator = standaloneDataSource({ url: as(owner), timeoutMs: 10000 });
      await migrator.initialize();
      await migrator.runMigrations();
      ({ key } = await new ApiKeyCommands(migrator).create('least-privilege'));
      await migrator.destroy();
      await roles({ connect_roles: writer.name });

      admin = standaloneDataSource({ url: adminUrl, timeoutMs: 10000 });
      await admin.initialize();
      await insertLinks(admin, [{ id: 'link-a' }, { id: 'link-b' }]);
      await insertClients(admin, [{ id: 'client-a', linkId: 'link-a', status: 'new' }]);

      process.env.DATABASE_URL = as(api);
      delete process.env.API_KEYS;
      app = await startApp();
    }, 60000);

    async function startApp(): Promise<NestExpressApplication> {
      const moduleRef = await Test.createTestingModule({
        imports: [await AppModule.forRoot()],
      }).compile();
      const started = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
      configureApp(started);
      try {
        return await started.init();
      } catch (error) {
        await started.close();
        throw error;
      }
    }

    afterAll(async () => {
      await app?.close();
      await admin?.destroy();
      await onTestServer(
        `DROP DATABASE IF EXISTS "${new URL(adminUrl).pathname.slice(1)}" WITH (FORCE)`,
      );
      await onTestServer(
        `DROP ROLE IF EXISTS ${api.name}, ${owner.name}, ${writer.name}, ${stranger.name}`,
      );
    });

    it('the migrations ran as the owner, which owns every table', async () => {
      const tables = await admin.query<{ tableowner: string }[]>(
        `SELECT tableowner FROM pg_tables WHERE schemaname = 'public'`,
      );
      expect(tables.length).toBe(5);
      expect(tables.every((t) => t.tableowner === owner.name)).toBe(true);
    });

    it('serves every endpoint with a managed key, and records its last use', async () => {
      expect((await get('/api/data/links')).body.data).toHaveLength(2);
      expect((await get('/api/data/links/link-b')).body.id).toBe('link-b');
      expect((await get('/api/data/clients')).body.data[0].id).toBe('client-a');
      expect((await get('/api/data/clients?linkId=link-a&limit=1')).body.meta.total).toBe(1);
      expect((await get('/api/data/clients/client-a')).body.status).toBe('new');
      await request(app.getHttpServer()).get('/health/ready').expect(200);
      const lastUsed = await waitFor(
        async () =>
          (
            (await admin.query(`SELECT last_used_at FROM api_keys`)) as {
              last_used_at: Date | null;
            }[]
          )[0].last_used_at,
        { what: 'api_keys.last_used_at to be written', timeoutMs: 5000, intervalMs: 100 },
      );
      expect(lastUsed).toBeInstanceOf(Date);
    });

    it('refuses to start as a role roles.sql has not granted what the API uses', async () => {
      await admin.query(`REVOKE SELECT ON clients FROM ${api.name}`);
      await admin.query(`REVOKE EXECUTE ON FUNCTION oldest_writer_start() FROM ${api.name}`);
      try {
        await expect(startApp()).rejects.toThrow(
          'The database role may not use clients, oldest_writer_start(): run deploy/sql/roles.sql after the migrations',
        );
      } finally {
        await roles({});
      }
      await admin.query(`REVOKE pg_read_all_stats FROM ${owner.name}`);
      try {
        await expect(startApp()).rejects.toThrow(
          'The owner of oldest_writer_start() lacks pg_read_all_stats, so the change feeds would stall',
        );
      } finally {
        await roles({});
      }
      await (await startApp()).close();
    });

    describe('the role itself', () => {
      let client: PgClient;
      beforeAll(async () => {
        client = testClient({ connectionString: as(api) });
        await client.connect();
      });
      afterAll(() => client.end());

      it.each([
        `INSERT INTO links (id) VALUES ('x')`,
        `UPDATE links SET updated_at = now()`,
        `DELETE FROM clients`,
        `TRUNCATE links, clients`,
        `UPDATE clients SET status = 'x'`,
        `UPDATE api_keys SET revoked_at = NULL`,
        `INSERT INTO api_keys (name, prefix, key_hash) VALUES ('x', 'x', '\\x00')`,
        `DELETE FROM api_keys`,
        `CREATE TABLE intruder (id int)`,
        `DROP TABLE clients`,
        `CREATE TEMP TABLE links (x int)`,
      ])('may not: %s', async (sql) => {
        await expect(client.query(sql)).rejects.toMatchObject({ code: '42501' });
      });

      it('has an idle-in-transaction timeout and a connection limit', async () => {
        const { rows } = await client.query(
          `SELECT current_setting('idle_in_transaction_session_timeout') AS idle, rolconnlimit
         FROM pg_roles WHERE rolname = current_user`,
        );
        expect(rows).toEqual([{ idle: '1min', rolconnlimit: 150 }]);
      });

      it('is one of the roles that may connect, with the writers named; PUBLIC is not', async () => {
        const connect = async (role: { name: string; password: string }) => {
          const other = testClient({ connectionString: as(role) });
          await other.connect();
          await other.end();
        };
        await connect(writer);
        await expect(connect(stranger)).rejects.toMatchObject({ code: '42501' });
      });

      it("cannot read other sessions' activity, their SQL text included", async () => {
        const { rows } = await client.query(
          `SELECT query FROM pg_stat_activity WHERE usename <> current_user`,
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(new Set(rows.map((row) => row.query))).toEqual(
          new Set(['<insufficient privilege>']),
        );
      });

      it("learns when another role's open write started, and the feed waits for it", async () => {
        const ids = ({ body }: request.Response) =>
          body.data.map((link: { id: string }) => link.id);
        const oldestWriterStart = async () =>
          (await client.query(`SELECT oldest_writer_start() AS start`)).rows[0].start;
        // Null while nothing writes (the API's own write of a key's last use may be in flight).
        await waitFor(async () => (await oldestWriterStart()) === null, {
          what: 'no write in flight',
          timeoutMs: 5000,
          intervalMs: 50,
        });
        const writer = testClient({ connectionString: adminUrl });
        await writer.connect();
        let first: request.Response;
        try {
          await writer.query(`BEGIN`);
          await writer.query(`UPDATE links SET id = id WHERE id = 'link-b'`);
          const { rows } = await writer.query(`SELECT now() AS started`);
          expect(await oldestWriterStart()).toEqual(rows[0].started);
          // Committed at once, but stamped after the open write started: it waits behind it.
          await insertLinks(admin, [{ id: 'link-c' }]);
          first = await get('/api/data/changes/links?limit=100');
          expect(ids(first)).toEqual(['link-a', 'link-b']);
          await writer.query(`COMMIT`);
        } finally {
          await writer.end();
        }
        const next = `/api/data/changes/links?limit=100&cursor=${first.body.meta.nextCursor}`;
        // Each row once the safe point (100 ms behind the clock) has passed its stamp: both, in time.
        const caughtUp = await waitFor(
          async () => {
            const page = await get(next);
            return page.body.data.length === 2 && page;
          },
          { what: 'the feed to serve the writes', timeoutMs: 5000, intervalMs: 100 },
        );
        expect(ids(caughtUp)).toEqual(['link-b', 'link-c']);
      });
    });
  },
);
