// The contract's SQL done the naive way, shared by both measuring sticks (the raw node:http
// server and the bare NestJS one), so the two differ only in their HTTP stack: an exact
// count(*) per list request, OFFSET paging, rows turned into objects and Dates in Node.
import pg from 'pg';

export const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
// The bench drops the database at the end, which ends idle connections.
pool.on('error', () => undefined);

const toLink = (row) => ({
  id: row.id,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});
const toClient = (row) => ({
  id: row.id,
  linkId: row.link_id,
  isDeleted: row.is_deleted,
  status: row.status,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** `query` is a URLSearchParams-like `get`/`has` pair. */
export async function listClients(query) {
  const page = Number(query.get('page') ?? 1);
  const limit = Number(query.get('limit') ?? 100);
  const conditions = [];
  const params = [];
  for (const [name, column] of [
    ['linkId', 'link_id'],
    ['isDeleted', 'is_deleted'],
    ['status', 'status'],
  ]) {
    if (query.has(name)) {
      params.push(name === 'isDeleted' ? query.get(name) === 'true' : query.get(name));
      conditions.push(`${column} = $${params.length}`);
    }
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const [count, rows] = await Promise.all([
    pool.query(`SELECT count(*)::int AS total FROM clients ${where}`, params),
    pool.query(
      `SELECT * FROM clients ${where} ORDER BY created_at, id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
      params,
    ),
  ]);
  const total = count.rows[0].total;
  return {
    data: rows.rows.map(toClient),
    meta: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

export async function listLinks() {
  const { rows } = await pool.query('SELECT * FROM links ORDER BY created_at, id');
  return { data: rows.map(toLink), meta: { total: rows.length } };
}

/** `table` is 'links' or 'clients'; undefined when there is no such row. */
export async function getById(table, id) {
  const { rows } = await pool.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0] && (table === 'links' ? toLink(rows[0]) : toClient(rows[0]));
}
