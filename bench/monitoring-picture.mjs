// `npm run monitoring:picture`: docs/monitoring-dashboard.png, the first row of
// deploy/monitoring/dashboard.json as it looks on a real run. The production server (built,
// migrated, 20,000 clients) serves a steady mix for PICTURE_SECONDS (240) — reads, some 4xx, long
// polls woken by a writer — and midway one consumer opens more long polls than its share
// (MAX_WAITING_POLLS_PER_KEY), retrying each 429 after its Retry-After, for 20 s; Debian's
// Prometheus scrapes it every 2 s with deploy/monitoring/rules.yml. Each panel's queries are then
// read with query_range and drawn as SVG, and headless Chromium (CHROMIUM_PATH, /usr/bin/chromium)
// takes the picture. Needs `prometheus` and `chromium` (apt-get install prometheus chromium).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { API_KEY } from './measure.mjs';
import { build, createDatabase, freePort, root, runSql, startServer } from './support.mjs';

const seconds = Number(process.env.PICTURE_SECONDS ?? 240);
const output = process.env.PICTURE_OUTPUT ?? join(root, 'docs/monitoring-dashboard.png');
const CLIENTS = 20_000;
const STEP_SECONDS = 4;
// Grafana's $__rate_interval for a 2 s scrape would be 8 s; 30 s smooths a picture of minutes.
const RATE_INTERVAL = '30s';
// Seconds of traffic before the picture starts: every rate's window full, caches warm.
const WARM_UP_SECONDS = 30;
const headers = { authorization: `Bearer ${API_KEY}` };
// The consumer that opens too many long polls, under a key of its own.
const GREEDY_KEY = randomBytes(24).toString('base64url');
const log = (message) => console.log(`[monitoring-picture] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const n = (max) => 1 + Math.floor(Math.random() * max);
const pick = (items) => items[Math.floor(Math.random() * items.length)];

// What consumers send: mostly reads, a few mistakes (4xx).
function nextPath() {
  const roll = Math.random();
  if (roll < 0.35) return `/api/data/clients/client-${n(CLIENTS * 1.02)}`;
  if (roll < 0.65) return `/api/data/clients?linkId=link-${n(200)}&limit=${pick([10, 100])}`;
  if (roll < 0.8) return `/api/data/clients?status=${pick(['new', 'connected'])}&page=${n(20)}`;
  if (roll < 0.9) return `/api/data/links/link-${n(210)}`;
  if (roll < 0.97) return '/api/data/links';
  return pick(['/api/data/clients?page=0', '/api/data/nope']);
}

function traffic(port, options) {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: nextPath() }) }],
    ...options,
  });
}

/** A consumer following the clients feed with long polls from `cursor` until `until`. */
async function follow(port, cursor, until, key = API_KEY) {
  let position = cursor;
  while (Date.now() < until) {
    const query = `limit=1000&wait=25&cursor=${encodeURIComponent(position)}`;
    const res = await fetch(`http://127.0.0.1:${port}/api/data/changes/clients?${query}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(Math.max(until - Date.now(), 1)),
    }).catch(() => undefined);
    if (res?.ok) position = (await res.json()).meta.nextCursor;
    // A 429 or 503 asks to come back after Retry-After (1 s).
    else await sleep(1000);
  }
}

/** The position after every change so far: one walk of the clients feed. */
async function tail(port) {
  let cursor = '';
  for (;;) {
    const query = `limit=1000${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
    const res = await fetch(`http://127.0.0.1:${port}/api/data/changes/clients?${query}`, {
      headers,
    });
    const { meta } = await res.json();
    cursor = meta.nextCursor;
    if (!meta.hasMore) return cursor;
  }
}

/** A writer changing one client every 1.5 s on average, until `until`. */
async function write(url, until) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  while (Date.now() < until) {
    await client.query(`UPDATE clients SET status = $1 WHERE id = $2`, [
      pick(['new', 'connected']),
      `client-${n(CLIENTS)}`,
    ]);
    await sleep(Math.random() * 3000);
  }
  await client.end();
}

async function startPrometheus(dir, metricsPort) {
  writeFileSync(
    join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '2s', evaluation_interval: '2s' },
      rule_files: [join(root, 'deploy/monitoring/rules.yml')],
      scrape_configs: [
        {
          job_name: 'links-clients-api',
          static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }],
        },
      ],
    }),
  );
  const port = await freePort();
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (
    let i = 0;
    !(await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 100) throw new Error('Prometheus did not start');
    await sleep(200);
  }
  return { child, url };
}

async function queryRange(prometheusUrl, expr, start, end) {
  const params = new URLSearchParams({ query: expr, start, end, step: String(STEP_SECONDS) });
  const answer = await (await fetch(`${prometheusUrl}/api/v1/query_range?${params}`)).json();
  if (answer.status !== 'success') throw new Error(`${expr}: ${answer.error}`);
  return answer.data.result;
}

/** The dashboard's first row: its panels, with each target's series over the run. */
async function firstRow(prometheusUrl, start, end) {
  const { panels } = JSON.parse(readFileSync(join(root, 'deploy/monitoring/dashboard.json')));
  const rows = panels.map((panel, index) => [panel, index]).filter(([p]) => p.type === 'row');
  const row = panels.slice(rows[0][1] + 1, rows[1][1]);
  for (const panel of row) {
    panel.series = [];
    for (const target of panel.targets) {
      const expr = target.expr.replaceAll('$__rate_interval', RATE_INTERVAL);
      for (const { metric, values } of await queryRange(prometheusUrl, expr, start, end)) {
        const name = target.legendFormat.replace(
          /\{\{(\w+)\}\}/g,
          (_, label) => metric[label] ?? '',
        );
        panel.series.push({ name, points: values.map(([t, v]) => [t - start, Number(v)]) });
      }
    }
  }
  return row;
}

async function main() {
  build();
  const db = await createDatabase('monitoring_picture');
  const dir = mkdtempSync(join(tmpdir(), 'links-clients-picture-'));
  let server;
  let prometheus;
  try {
    await runSql(
      db.url,
      `INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(1, 200) AS i`,
      `INSERT INTO clients (id, link_id, is_deleted, status, created_at)
       SELECT 'client-' || i, 'link-' || (1 + i % 200), i % 10 = 0,
              CASE WHEN i % 3 = 0 THEN 'new' ELSE 'connected' END, now() - i * interval '1 minute'
       FROM generate_series(1, ${CLIENTS}) AS i`,
      'VACUUM ANALYZE',
    );
    const port = await freePort();
    const metricsPort = await freePort();
    const api = startServer(
      'dist/main.js',
      {
        DATABASE_URL: db.url,
        API_KEYS: `${API_KEY},${GREEDY_KEY}`,
        METRICS_PORT: String(metricsPort),
      },
      port,
    );
    server = api.child;
    await api.ready;
    prometheus = await startPrometheus(dir, metricsPort);
    const position = await tail(port);
    const until = Date.now() + (WARM_UP_SECONDS + seconds) * 1000;
    log(`${WARM_UP_SECONDS} + ${seconds} s of traffic against ${`http://127.0.0.1:${port}`}`);
    const steady = traffic(port, {
      connections: 8,
      overallRate: 80,
      duration: WARM_UP_SECONDS + seconds,
    });
    const followers = [1, 2, 3, 4].map(() => follow(port, position, until));
    const background = [write(db.url, until), ...followers];
    await sleep(WARM_UP_SECONDS * 1000);
    const start = Math.floor(Date.now() / 1000);
    const burstAt = Math.round(seconds * 0.55);
    await sleep(burstAt * 1000);
    log(`at ${burstAt} s: one consumer opens 120 long polls for 20 s`);
    const burstUntil = Date.now() + 20_000;
    await Promise.all(
      Array.from({ length: 120 }, () => follow(port, position, burstUntil, GREEDY_KEY)),
    );
    await steady;
    await Promise.all(background);
    // Up to the traffic's end: its last requests are cut when it stops.
    const end = start + seconds - 2;
    await sleep(4000);
    const row = await firstRow(prometheus.url, start, end);
    const html = page(row, end - start, burstAt);
    writeFileSync(join(dir, 'row.html'), html);
    await screenshot(html, output);
    log(`wrote ${output}`);
  } finally {
    prometheus?.child.kill();
    server?.kill('SIGTERM');
    await sleep(500);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function screenshot(html, path) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const view = await browser.newPage({ viewport: { width: 1800, height: 400 } });
    await view.setContent(html);
    await view.screenshot({ path, fullPage: true });
  } finally {
    await browser.close();
  }
}

// Grafana's classic palette, in its order.
const COLORS = ['#73bf69', '#f2cc0c', '#8ab8ff', '#ff780a', '#f2495c', '#5794f2', '#b877d9'];
const WIDTH = 1760;

function page(row, runSeconds, burstAt) {
  const total = row.reduce((sum, panel) => sum + panel.gridPos.w, 0);
  const panels = row
    .map((panel) => chart(panel, Math.floor((panel.gridPos.w / total) * WIDTH) - 12, runSeconds))
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; padding: 16px 20px; background: #111217; color: #ccccdc;
           font: 12px 'DejaVu Sans', sans-serif; width: ${WIDTH}px; }
    h1 { font-size: 15px; font-weight: 500; margin: 0 0 10px; }
    h1 span { color: #8e8e9a; font-weight: 400; }
    .row { display: flex; gap: 12px; }
    .panel { background: #181b1f; border: 1px solid #2c3235; border-radius: 3px; padding: 8px; }
    .title { font-weight: 500; margin-bottom: 4px; }
    .legend { display: flex; flex-wrap: wrap; gap: 2px 12px; margin-top: 4px; color: #ccccdc; }
    .legend i { display: inline-block; width: 14px; height: 3px; margin: 0 5px 3px 0; }
    svg text { fill: #8e8e9a; font-size: 11px; }
  </style></head><body>
  <h1>Links and Clients API — Service level <span>(the first row of deploy/monitoring/dashboard.json;
  ${Math.round(runSeconds / 60)} min of bench/monitoring-picture.mjs: steady reads with some 4xx,
  long polls woken by a writer; at ${minutes(burstAt)}, one consumer opens 120 long polls for 20 s, 20
  over its share)</span></h1>
  <div class="row">${panels}</div></body></html>`;
}

function chart(panel, width, runSeconds) {
  const defaults = panel.fieldConfig.defaults;
  const stacked = defaults.custom?.stacking?.mode === 'normal';
  const series = panel.series.map((s, i) => ({ ...s, color: COLORS[i % COLORS.length] }));
  if (stacked) stack(series);
  const values = series.flatMap((s) => s.points.map(([, v]) => v)).filter(Number.isFinite);
  const dataMax = Math.max(0, ...values);
  // A threshold line is drawn when it sits near the data, as a reference; not to flatten it.
  const lines =
    defaults.custom?.thresholdsStyle?.mode === 'line'
      ? defaults.thresholds.steps.map((step) => step.value).filter((v) => v !== null)
      : [];
  const shown = lines.filter((v) => v <= Math.max(dataMax * 3, Number.MIN_VALUE));
  const max = niceMax(Math.max(dataMax, ...shown, defaults.max ?? 0) || 1);
  const [left, top, height] = [72, 6, 190];
  const plot = width - left - 8;
  const x = (t) => left + (t / runSeconds) * plot;
  const y = (v) => top + height - (v / max) * height;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return `<line x1="${left}" x2="${left + plot}" y1="${y(v)}" y2="${y(v)}" stroke="#2c3235"/>
      <text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${format(v, defaults.unit)}</text>`;
  });
  const ticks = [];
  for (let t = 0; t <= runSeconds; t += 60)
    ticks.push(
      `<text x="${x(t)}" y="${top + height + 16}" text-anchor="middle">${minutes(t)}</text>`,
    );
  const thresholds = shown.map(
    (v) => `<line x1="${left}" x2="${left + plot}" y1="${y(v)}" y2="${y(v)}" stroke="#f2495c"
      stroke-dasharray="5 4"/><text x="${left + plot - 2}" y="${y(v) + 13}" text-anchor="end"
      style="fill:#f2495c">${format(v, defaults.unit)}</text>`,
  );
  // Each line over a light fill down to the series below it (or 0), as fillOpacity 10 draws it.
  const xy = ([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`;
  const paths = series.map((s) => {
    const runs = segments(s.points).map((seg) => seg.map(xy).join('L'));
    const area = segments(s.points)
      .map((seg) => {
        const below = seg.map(([t]) => [t, s.base?.get(t) ?? 0]).reverse();
        return `M${seg.map(xy).join('L')}L${below.map(xy).join('L')}Z`;
      })
      .join('');
    return `<path d="${area}" fill="${s.color}" fill-opacity="${defaults.custom?.fillOpacity ? 0.1 : 0}"/>
      <path d="${runs.map((run) => `M${run}`).join('')}" fill="none" stroke="${s.color}"
      stroke-width="1.5"/>`;
  });
  const legend = series
    .map((s) => `<span><i style="background:${s.color}"></i>${escape(s.name)}</span>`)
    .join('');
  return `<div class="panel" style="width:${width}px"><div class="title">${escape(panel.title)}</div>
    <svg width="${width}" height="${top + height + 22}">${grid.join('')}${ticks.join('')}
    ${thresholds.join('')}${paths.join('')}</svg><div class="legend">${legend}</div></div>`;
}

/** Stacks series in place, each on the sum of those before it (at the same timestamps). */
function stack(series) {
  const base = new Map();
  for (const s of series) {
    s.base = new Map(base);
    s.points = s.points.map(([t, v]) => {
      const sum = (base.get(t) ?? 0) + (Number.isFinite(v) ? v : 0);
      base.set(t, sum);
      return [t, sum];
    });
  }
}

/** Runs of consecutive finite points: NaN (no request in the window) leaves a gap. */
function segments(points) {
  const runs = [[]];
  for (const [t, v] of points) {
    if (Number.isFinite(v)) runs.at(-1).push([t, v]);
    else if (runs.at(-1).length > 0) runs.push([]);
  }
  return runs.filter((run) => run.length > 0);
}

function niceMax(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= value);
}

function format(value, unit) {
  const short = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : String(+v.toFixed(2)));
  if (unit === 's') return value < 1 ? `${short(value * 1000)} ms` : `${short(value)} s`;
  if (unit === 'reqps') return `${short(value)} req/s`;
  if (unit === 'x') return `${short(value)}×`;
  return short(value);
}

const minutes = (t) => `${Math.floor(t / 60)}:${String(Math.round(t % 60)).padStart(2, '0')}`;
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

await main();
