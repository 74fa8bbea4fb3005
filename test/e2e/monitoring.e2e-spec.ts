import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compiledApp, run, RunningApi, startCompiledApi } from '../support/compiled-app';
import { onTestServer } from '../support/database';
import { dashboardQueries, JOB, ruleFile } from '../support/monitoring';
import { describeWith, programPath } from '../support/optional-program';
import { testClient } from '../support/pg-client';
import { startRedis } from '../support/redis-server';
import { runDir } from '../support/run-dir';
import { waitFor } from '../support/wait-for';
import { freePort } from '../../src/dev/free-port';

interface PromResult {
  metric: Record<string, string>;
  value: [number, string];
}
type PromAnswer<T> = { status: 'success'; data: T } | { status: 'error'; error: string };

// The production build scraped by a real Prometheus (Debian's) loaded with deploy/monitoring's
// rules: every dashboard query and rule expression asked of it, and an alert brought about.
describeWith(
  ['prometheus', 'redis-server'],
  'Monitoring: the rules and dashboard against a live API',
  () => {
    const databaseUrl = new URL(process.env.DATABASE_URL as string);
    databaseUrl.pathname += '_mon';
    const apiKey = randomBytes(24).toString('base64url');
    const auth = { Authorization: `Bearer ${apiKey}` };
    let redis: ChildProcess;
    let api: RunningApi;
    let prometheus: ChildProcess;
    let prometheusUrl: string;
    let metricsUrl: string;
    let dir: string;

    const get = (path: string) => fetch(`${api.url}${path}`, { headers: auth });
    async function ask<T>(path: string): Promise<PromAnswer<T>> {
      return (await fetch(`${prometheusUrl}/api/v1/${path}`)).json() as Promise<PromAnswer<T>>;
    }
    const query = (expr: string) =>
      ask<{ result: PromResult[] }>(`query?query=${encodeURIComponent(expr)}`);

    beforeAll(async () => {
      const outDir = await compiledApp();
      await onTestServer(`CREATE DATABASE "${databaseUrl.pathname.slice(1)}"`);
      await run(
        'node_modules/.bin/typeorm',
        ['migration:run', '-d', join(outDir, 'entry/migration.data-source.js')],
        { env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl.toString() } },
      );
      const redisPort = await freePort();
      redis = await startRedis(redisPort);
      const metricsPort = await freePort();
      metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      api = await startCompiledApi(join(outDir, 'main.js'), {
        PATH: process.env.PATH as string,
        NODE_ENV: 'production',
        PORT: '0',
        METRICS_PORT: String(metricsPort),
        DATABASE_URL: databaseUrl.toString(),
        // The same database as a read replica: a pool labelled replica-0.
        DATABASE_REPLICA_URLS: databaseUrl.toString(),
        API_KEYS: apiKey,
        CURSOR_SECRET: 'monitoring-cursor-secret-0123456789ab',
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        REDIS_KEY_PREFIX: `test-monitoring-${randomBytes(4).toString('hex')}:`,
        // One waiting poll at a time, so that a second one is shed.
        MAX_WAITING_POLLS: '1',
      });

      dir = mkdtempSync(join(runDir(), 'prometheus-'));
      // Every second, so that rates and pending alerts show within seconds.
      writeFileSync(
        join(dir, 'prometheus.yml'),
        JSON.stringify({
          global: { scrape_interval: '1s', evaluation_interval: '1s' },
          rule_files: [resolve('deploy/monitoring/rules.yml')],
          scrape_configs: [
            { job_name: JOB, static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] },
          ],
        }),
      );
      const port = await freePort();
      prometheusUrl = `http://127.0.0.1:${port}`;
      prometheus = spawn(programPath('prometheus'), [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ]);
      let output = '';
      prometheus.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await waitFor(
        () =>
          fetch(`${prometheusUrl}/-/ready`).then(
            (res) => res.ok,
            () => false,
          ),
        { what: () => `Prometheus to be ready: ${output}`, timeoutMs: 20000, intervalMs: 200 },
      );
    }, 120000);

    afterAll(async () => {
      prometheus?.kill();
      api?.child.kill('SIGTERM');
      redis?.kill();
      await api?.exited;
      await onTestServer(
        `DROP DATABASE IF EXISTS "${databaseUrl.pathname.slice(1)}" WITH (FORCE)`,
      ).catch(() => undefined);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('answers every dashboard query with data and evaluates every rule', async () => {
      expect((await get('/api/data/links')).status).toBe(200);
      expect((await get('/api/data/clients?limit=5')).status).toBe(200);
      expect((await get('/api/data/clients/no-such-client')).status).toBe(404);
      // A long poll waits (the feed is empty); a second one, past MAX_WAITING_POLLS, is shed; a
      // change wakes the first.
      const waiting = get('/api/data/changes/links?wait=25');
      await waitFor(
        async () => /^change_feed_waiting_polls 1$/m.test(await (await fetch(metricsUrl)).text()),
        { what: 'the long poll to wait' },
      );
      expect((await get('/api/data/changes/links?wait=25')).status).toBe(503);
      const db = testClient({ connectionString: databaseUrl.toString() });
      await db.connect();
      await db.query(`INSERT INTO links (id) VALUES ('link-1')`);
      await db.end();
      const woken = await waiting;
      expect(woken.status).toBe(200);
      const { data } = (await woken.json()) as { data: { id: string }[] };
      expect(data.map((link) => link.id)).toEqual(['link-1']);

      // Grafana's $__rate_interval: at least four scrape intervals.
      const queries = dashboardQueries().map((q) => ({
        ...q,
        expr: q.expr.replaceAll('$__rate_interval', '1m'),
      }));
      const answers = new Map<string, PromResult[]>();
      await waitFor(
        async () => {
          for (const { expr } of queries) {
            const answer = await query(expr);
            if (answer.status !== 'success') throw new Error(`${expr}: ${answer.error}`);
            answers.set(expr, answer.data.result);
          }
          return queries.every(({ expr }) => answers.get(expr)!.length > 0);
        },
        {
          what: () =>
            `data for: ${queries
              .filter(({ expr }) => !answers.get(expr)?.length)
              .map(({ panel, expr }) => `${panel}: ${expr}`)
              .join('\n')}`,
          timeoutMs: 20000,
          intervalMs: 500,
        },
      );
      const series = (panel: string) =>
        queries.filter((q) => q.panel === panel).flatMap(({ expr }) => answers.get(expr)!);
      expect(series('Shed requests by reason').map((s) => s.metric.reason)).toEqual([
        'waiting_polls',
      ]);
      expect(series('Errors by route and status').map((s) => s.metric)).toEqual(
        expect.arrayContaining([
          { route: '/api/data/clients/:id', status: '404' },
          // Refused for load before it was routed.
          { route: '<unmatched>', status: '503' },
        ]),
      );
      expect(series('Wake-ups of waiting polls').map((s) => s.metric.feed)).toContain('links');

      // Each rule's expression as Prometheus evaluates it, and the rule groups' own health.
      for (const rule of ruleFile().groups.flatMap((group) => group.rules)) {
        const answer = await query(rule.expr);
        expect([rule.record ?? rule.alert, answer.status]).toEqual([
          rule.record ?? rule.alert,
          'success',
        ]);
      }
      type Groups = { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      const rules = await waitFor(
        async () => {
          const answer = await ask<Groups>('rules');
          const all = answer.status === 'success' ? answer.data.groups.flatMap((g) => g.rules) : [];
          return all.length > 0 && all.every((rule) => rule.health !== 'unknown') && all;
        },
        { what: 'every rule to be evaluated' },
      );
      expect(rules.filter((rule) => rule.health !== 'ok')).toEqual([]);
    }, 60000);

    it('turns LinksClientsRedisUnavailable pending once Redis stops', async () => {
      type Alerts = { alerts: { labels: Record<string, string>; state: string }[] };
      const redisAlerts = async () => {
        const answer = await ask<Alerts>('alerts');
        if (answer.status !== 'success') throw new Error(answer.error);
        return answer.data.alerts.filter(
          (a) => a.labels.alertname === 'LinksClientsRedisUnavailable',
        );
      };
      expect(await redisAlerts()).toEqual([]);
      redis.kill('SIGKILL');
      // The next request's rate limit finds Redis gone; the pod goes on alone.
      expect((await get('/api/data/links')).status).toBe(200);
      const pending = await waitFor(
        async () => (await redisAlerts()).find((a) => a.state === 'pending'),
        {
          what: 'LinksClientsRedisUnavailable to be pending',
          timeoutMs: 20000,
          intervalMs: 250,
        },
      );
      expect(pending.labels).toMatchObject({ job: JOB, severity: 'ticket' });
    });
  },
);
