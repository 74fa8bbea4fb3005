// A measuring stick, not product code: the naive API (bench/naive-api.mjs) on bare node:http.
// `npm run bench` runs it beside the real server.
import { createServer } from 'node:http';
import { getById, listClients, listLinks, pool } from './naive-api.mjs';

const apiKey = process.env.API_KEYS;

async function route(path, query) {
  if (path === '/api/data/links') return listLinks();
  if (path === '/api/data/clients') return listClients(query);
  const match = /^\/api\/data\/(links|clients)\/([^/]+)$/.exec(path);
  return match ? getById(match[1], decodeURIComponent(match[2])) : undefined;
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
