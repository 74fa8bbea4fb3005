import { DataSource } from 'typeorm';
import { DEMO_CLIENT_COUNT, DEMO_LINK_COUNT, seedDemoData } from '../../src/dev/seed-demo-data';
import { createSuiteDatabase, dropSuiteDatabase } from '../support/database';

// `npm start` seeds the same demo set every time, timestamps included: the docs show its rows.
describe('demo seed', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
  });
  afterAll(() => dropSuiteDatabase(dataSource));

  it('seeds once, with the timestamps it gives despite the updated_at trigger', async () => {
    await expect(seedDemoData(dataSource)).resolves.toBe(true);
    await expect(seedDemoData(dataSource)).resolves.toBe(false);
    const [counts] = await dataSource.query(
      'SELECT (SELECT count(*)::int FROM links) AS links, (SELECT count(*)::int FROM clients) AS clients',
    );
    expect(counts).toEqual({ links: DEMO_LINK_COUNT, clients: DEMO_CLIENT_COUNT });
    const [client] = await dataSource.query(
      `SELECT to_json(created_at AT TIME ZONE 'UTC') AS "createdAt",
              to_json(updated_at AT TIME ZONE 'UTC') AS "updatedAt"
       FROM clients WHERE id = 'client-00011'`,
    );
    expect(client).toEqual({ createdAt: '2026-02-01T00:03:00', updatedAt: '2026-02-05T00:03:00' });
  });
});
