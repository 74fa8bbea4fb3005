import { DataSource, EntityManager } from 'typeorm';

export const DEMO_LINK_COUNT = 40;
export const DEMO_CLIENT_COUNT = 3000;

/**
 * Fills an empty database with the same demo set every time: 40 links and 3,000 clients, a
 * quarter of them on link-01, mostly `connected` or `new` with a few other statuses, every
 * tenth soft-deleted, created three at a time so equal timestamps show the id tie-break.
 * Returns false, touching nothing, when links already exist.
 */
export async function seedDemoData(dataSource: DataSource): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    const [{ count }] = await manager.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM links',
    );
    if (count > 0) return false;
    await keepGivenTimestamps(manager);
    await manager.query(
      `INSERT INTO links (id, created_at, updated_at)
       SELECT 'link-' || lpad(i::text, 2, '0'),
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 hour',
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 hour'
       FROM generate_series(1, $1) AS i`,
      [DEMO_LINK_COUNT],
    );
    await manager.query(
      `INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
       SELECT 'client-' || lpad(i::text, 5, '0'),
              'link-' || lpad((CASE WHEN i % 4 = 0 THEN 1 ELSE 1 + (i * 7) % $2 END)::text, 2, '0'),
              i % 10 = 0,
              CASE WHEN i % 50 = 7 THEN 'suspended'
                   WHEN i % 50 = 13 THEN 'pending'
                   WHEN i % 5 < 3 THEN 'connected'
                   ELSE 'new' END,
              timestamptz '2026-02-01T00:00:00Z' + (i / 3) * interval '1 minute',
              timestamptz '2026-02-01T00:00:00Z' + (i / 3) * interval '1 minute' + (i % 7) * interval '1 day'
       FROM generate_series(1, $1) AS i`,
      [DEMO_CLIENT_COUNT, DEMO_LINK_COUNT],
    );
    return true;
  });
}

/**
 * The updated_at trigger stamps every write with its own time; the demo set keeps the times
 * it gives (the docs show them) wherever the role may switch triggers off for its transaction,
 * as the embedded database's superuser can. Elsewhere the rows carry the time of seeding.
 */
async function keepGivenTimestamps(manager: EntityManager): Promise<void> {
  await manager.query('SAVEPOINT keep_timestamps');
  try {
    await manager.query('SET LOCAL session_replication_role = replica');
  } catch {
    await manager.query('ROLLBACK TO SAVEPOINT keep_timestamps');
  }
}
