// A measuring stick, not product code: the contract's SQL done the naive way on bare node:http
// and pg — an exact count(*) per list request, OFFSET paging, rows turned into objects and
// Dates in Node and back into JSON. `npm run bench` runs it beside the real server.
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
// The bench drops the database at the end, which ends idle connections.
pool.on('error', () => undefined);
const apiKey = process.env.API_KEYS;

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

async function listClients(query) {
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

async function route(path, query) {
  if (path === '/api/data/links') {
    const { rows } = await pool.query('SELECT * FROM links ORDER BY created_at, id');
    return { data: rows.map(toLink), meta: { total: rows.length } };
  }
  if (path === '/api/data/clients') return listClients(query);
  const match = /^\/api\/data\/(links|clients)\/([^/]+)$/.exec(path);
  if (!match) return undefined;
  const { rows } = await pool.query(`SELECT * FROM ${match[1]} WHERE id = $1`, [
    decodeURIComponent(match[2]),
  ]);
  return rows[0] && (match[1] === 'links' ? toLink(rows[0]) : toClient(rows[0]));
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (req.headers.authorization !== `Bearer ${apiKey}`) {
    res.writeHead(401).end();
    return;
  }
  try {
    const body = await route(url.pathname, url.searchParams);
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});

server.listen(Number(process.env.PORT ?? 3001), '127.0.0.1', () =>
  console.log(`reference server listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
