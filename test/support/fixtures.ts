import { DataSource } from 'typeorm';

export interface LinkRow {
  id: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface ClientRow {
  id: string;
  linkId: string;
  status: string;
  isDeleted?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

/**
 * Runs fixture writes with triggers off, so the timestamps a test gives are stored as given
 * (the updated_at trigger would stamp the time of the write). Foreign keys are triggers too:
 * fixtures must insert links before their clients.
 */
function withTimestampsAsGiven(
  dataSource: DataSource,
  write: (query: (sql: string, params: unknown[]) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  return dataSource.transaction(async (manager) => {
    await manager.query('SET LOCAL session_replication_role = replica');
    await write((sql, params) => manager.query(sql, params));
  });
}

// Inserted through SQL, as the systems feeding the real database do.
export async function insertLinks(dataSource: DataSource, links: LinkRow[]): Promise<void> {
  await withTimestampsAsGiven(dataSource, async (query) => {
    for (const link of links) {
      await query(
        `INSERT INTO links (id, created_at, updated_at)
       VALUES ($1, coalesce($2::timestamptz, now()), coalesce($3::timestamptz, now()))`,
        [link.id, link.createdAt ?? null, link.updatedAt ?? null],
      );
    }
  });
}

export async function insertClients(dataSource: DataSource, clients: ClientRow[]): Promise<void> {
  await withTimestampsAsGiven(dataSource, async (query) => {
    for (const client of clients) {
      await query(
        `INSERT INTO clients (id, link_id, status, is_deleted, created_at, updated_at)
       VALUES ($1, $2, $3, $4, coalesce($5::timestamptz, now()), coalesce($6::timestamptz, now()))`,
        [
          client.id,
          client.linkId,
          client.status,
          client.isDeleted ?? false,
          client.createdAt ?? null,
          client.updatedAt ?? null,
        ],
      );
    }
  });
}

export async function clearTables(dataSource: DataSource): Promise<void> {
  await dataSource.query('TRUNCATE clients, links');
}

/** Inserts `count` clients over 20 links in one statement, with createdAt ties in fours. */
export async function insertManyClients(dataSource: DataSource, count: number): Promise<void> {
  await withTimestampsAsGiven(dataSource, async (query) => {
    await query(
      `INSERT INTO links (id, created_at, updated_at)
     SELECT 'link-' || g, '2026-01-01'::timestamptz, '2026-01-01'::timestamptz
     FROM generate_series(1, 20) g`,
      [],
    );
    await query(
      `INSERT INTO clients (id, link_id, status, is_deleted, created_at, updated_at)
     SELECT 'client-' || lpad(g::text, 5, '0'), 'link-' || (g % 20 + 1),
            (ARRAY['new', 'connected', 'legacy'])[g % 3 + 1], g % 7 = 0,
            '2026-02-01'::timestamptz + (g / 4) * interval '1 second',
            '2026-03-01'::timestamptz + g * interval '1 millisecond'
     FROM generate_series(1, $1::int) g`,
      [count],
    );
  });
}
