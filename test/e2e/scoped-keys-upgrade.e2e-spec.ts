import request from 'supertest';
import { displayPrefix, generateApiKey, hashApiKey } from '../../src/api-keys/api-key-format';
import { createPeerApp } from '../support/create-app';
import { createSuiteDatabase, dropSuiteDatabase } from '../support/database';
import { insertClients, insertLinks } from '../support/fixtures';
import { DataSource } from 'typeorm';

// docs/upgrading.md: keys made before scoped keys existed keep full access after the upgrade.
describe('Upgrading to scoped keys', () => {
  let dataSource: DataSource;
  afterAll(() => dropSuiteDatabase(dataSource));

  it('keeps every existing key working, with every operation on every link', async () => {
    dataSource = await createSuiteDatabase();
    // The schema of the release before: without ScopeApiKeys.
    const last = dataSource.migrations.at(-1)!;
    expect(last.name).toBe('ScopeApiKeys1768089600000');
    await dataSource.undoLastMigration();
    const key = generateApiKey();
    await dataSource.query(
      `INSERT INTO api_keys (name, prefix, key_hash) VALUES ('before', $1, decode($2, 'hex'))`,
      [displayPrefix(key), hashApiKey(key)],
    );
    await insertLinks(dataSource, [{ id: 'link-a' }]);
    await insertClients(dataSource, [{ id: 'client-a', linkId: 'link-a', status: 'new' }]);

    await dataSource.runMigrations();
    const [{ operations, is_link_scoped }] = await dataSource.query(
      'SELECT operations, is_link_scoped FROM api_keys',
    );
    expect({ operations, is_link_scoped }).toEqual({ operations: null, is_link_scoped: false });
    const app = await createPeerApp();
    try {
      for (const path of [
        '/api/data/links',
        '/api/data/links/link-a',
        '/api/data/clients',
        '/api/data/clients/client-a',
        '/api/data/changes/clients',
        '/api/data/changes/links',
      ]) {
        const res = await request(app.getHttpServer())
          .get(path)
          .set('Authorization', `Bearer ${key}`);
        expect([path, res.status]).toEqual([path, 200]);
      }
    } finally {
      await app.close();
    }
  });
});
