import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { freePort } from '../../src/dev/free-port';
import { compiledApp, run, RunningApi, startCompiledApi } from '../support/compiled-app';
import { createSuiteDatabase, dropSuiteDatabase } from '../support/database';
import { insertClients, insertLinks } from '../support/fixtures';
import { itWith } from '../support/optional-program';
import { startRedis } from '../support/redis-server';
import { waitFor } from '../support/wait-for';

// The production start refuses keys under 32 characters.
const KEY = randomBytes(24).toString('base64url');
const LINK_ID = `link-${randomBytes(6).toString('hex')}`;
const CLIENT_ID = `client-${randomBytes(6).toString('hex')}`;
// A caller's trace: the server span must continue it.
const TRACE_ID = randomBytes(16).toString('hex');
const PARENT_SPAN_ID = randomBytes(8).toString('hex');
const SERVER = 2;

interface Attribute {
  key: string;
  value: Record<string, unknown>;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Attribute[];
}

/** An OTLP/HTTP receiver (JSON encoding): POST /v1/traces, as a collector takes them. */
class OtlpReceiver {
  readonly payloads: string[] = [];
  private readonly server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') this.payloads.push(body);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  spans(): Span[] {
    return this.payloads.flatMap((payload) =>
      (
        JSON.parse(payload) as {
          resourceSpans: { scopeSpans: { spans: Span[] }[] }[];
        }
      ).resourceSpans.flatMap(({ scopeSpans }) => scopeSpans.flatMap(({ spans }) => spans)),
    );
  }
}

const attribute = (span: Span, key: string) =>
  span.attributes.find((candidate) => candidate.key === key)?.value;

// On the compiled production entry point, the SDK started before pg, ioredis and express load.
describe('Tracing over OTLP/HTTP', () => {
  let mainJs: string;
  let dataSource: DataSource;
  const receiver = new OtlpReceiver();
  const apis: RunningApi[] = [];

  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH as string,
    NODE_ENV: 'production',
    DATABASE_URL: process.env.DATABASE_URL as string,
    API_KEYS: KEY,
    CURSOR_SECRET: 'tracing-cursor-secret-0123456789abcd',
    PORT: '0',
    METRICS_PORT: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'links-clients-api-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...extra,
  });
  const startApi = async (extra?: Record<string, string>) => {
    const api = await startCompiledApi(mainJs, env(extra));
    apis.push(api);
    return api;
  };
  const get = (api: RunningApi, path: string, headers: Record<string, string> = {}) =>
    fetch(`${api.url}${path}`, { headers: { Authorization: `Bearer ${KEY}`, ...headers } });
  const serverSpanOf = (traceId: string) =>
    waitFor(
      () => receiver.spans().find((span) => span.traceId === traceId && span.kind === SERVER),
      { what: () => `the server span of trace ${traceId} in ${receiver.payloads}` },
    );

  beforeAll(async () => {
    mainJs = join(await compiledApp(), 'main.js');
    dataSource = await createSuiteDatabase();
    await insertLinks(dataSource, [{ id: LINK_ID }]);
    await insertClients(dataSource, [{ id: CLIENT_ID, linkId: LINK_ID, status: 'connected' }]);
    await receiver.listen();
  }, 180000);

  afterAll(async () => {
    for (const api of apis) api.child.kill('SIGKILL');
    await receiver.close();
    await dropSuiteDatabase(dataSource);
  });

  it('continues the caller’s trace: a server span named by route, a child span per query, ids in the log line', async () => {
    const api = await startApi();
    const res = await get(api, `/api/data/clients?linkId=${LINK_ID}&limit=5`, {
      traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(CLIENT_ID);

    const server = await serverSpanOf(TRACE_ID);
    expect(server).toMatchObject({ name: 'GET /api/data/clients', parentSpanId: PARENT_SPAN_ID });
    expect(attribute(server, 'http.route')).toEqual({ stringValue: '/api/data/clients' });
    expect(attribute(server, 'http.response.status_code')).toEqual({ intValue: 200 });
    expect(attribute(server, 'url.path')).toBeUndefined();
    expect(attribute(server, 'url.query')).toBeUndefined();

    const queries = await waitFor(
      () => {
        const found = receiver
          .spans()
          .filter((span) => span.traceId === TRACE_ID && span.name.startsWith('pg.query'));
        return found.length > 0 && found;
      },
      { what: () => `the query spans in ${receiver.payloads}` },
    );
    for (const query of queries) {
      expect(query.parentSpanId).toBe(server.spanId);
      // The statement as written, its parameters as placeholders.
      expect(String(attribute(query, 'db.query.text')?.stringValue)).toMatch(/\$1/);
    }

    const line = await api.logLine((entry) => entry.msg === 'request completed');
    expect(line).toMatchObject({
      route: '/api/data/clients',
      trace_id: TRACE_ID,
      span_id: server.spanId,
    });

    // Nor any other span, nor anything about the service, holds the key or an id.
    const exported = receiver.payloads.join('\n');
    expect(exported).toContain('links-clients-api-test');
    for (const secret of [KEY, LINK_ID, CLIENT_ID]) expect(exported).not.toContain(secret);
  });

  it('names a get by its route, never by the id asked for', async () => {
    const api = apis[0] ?? (await startApi());
    const traceId = randomBytes(16).toString('hex');
    const res = await get(api, `/api/data/clients/${CLIENT_ID}`, {
      traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01`,
    });
    expect(res.status).toBe(200);
    const server = await serverSpanOf(traceId);
    expect(server.name).toBe('GET /api/data/clients/:id');
    expect(receiver.payloads.join('\n')).not.toContain(CLIENT_ID);
  });

  // docs/operations.md, Tracing: no header is recorded; the client's address is the peer's
  // unless TRUST_PROXY names the proxies whose forwarding header counts (as for rate limits).
  it.each([
    ['off', {}, '127.0.0.1'],
    ['1', { TRUST_PROXY: '1' }, '203.0.113.7'],
  ])(
    'records no header a caller writes; the client address as TRUST_PROXY %s trusts it',
    async (_trust, extra, clientAddress) => {
      const api = await startApi(extra);
      const traceId = randomBytes(16).toString('hex');
      const res = await get(api, '/api/data/links', {
        traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01`,
        'User-Agent': 'curious-agent/9.9',
        'X-Forwarded-For': '203.0.113.7',
        'X-Forwarded-Host': 'forwarded-host.example',
        Forwarded: 'for=198.51.100.9;host=forwarded-too.example',
      });
      expect(res.status).toBe(200);
      const server = await serverSpanOf(traceId);
      for (const key of ['user_agent.original', 'server.address', 'server.port'])
        expect(attribute(server, key)).toBeUndefined();
      expect(attribute(server, 'client.address')?.stringValue).toMatch(
        new RegExp(`^(::ffff:)?${clientAddress.replaceAll('.', '\\.')}$`),
      );
      const exported = JSON.stringify(server);
      for (const sent of ['curious-agent', 'forwarded-host', 'forwarded-too', '198.51.100.9'])
        expect(exported).not.toContain(sent);
      api.child.kill('SIGKILL');
    },
  );

  itWith(
    ['redis-server'],
    'records each Redis command by name, without its arguments',
    async () => {
      const port = await freePort();
      const redis = await startRedis(port);
      try {
        const prefix = `tracing-${randomBytes(4).toString('hex')}:`;
        const api = await startApi({
          REDIS_URL: `redis://127.0.0.1:${port}`,
          REDIS_KEY_PREFIX: prefix,
        });
        const traceId = randomBytes(16).toString('hex');
        const res = await get(api, '/api/data/links', {
          traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01`,
        });
        expect(res.status).toBe(200);
        const server = await serverSpanOf(traceId);
        const command = await waitFor(
          () =>
            receiver
              .spans()
              .find(
                (span) =>
                  span.traceId === traceId &&
                  attribute(span, 'db.system.name')?.stringValue === 'redis',
              ),
          { what: () => `the Redis span in ${receiver.payloads}` },
        );
        expect(command).toMatchObject({ name: 'eval', parentSpanId: server.spanId });
        expect(attribute(command, 'db.query.text')).toEqual({ stringValue: 'eval' });
        expect(receiver.payloads.join('\n')).not.toContain(prefix);
      } finally {
        redis.kill();
      }
    },
    60000,
  );

  // Off unless an endpoint is set: the production start then loads nothing of the SDK. (The
  // API, a set of no-ops until an SDK registers, is loaded anyway: prom-client reads it.)
  it('loads no OpenTelemetry SDK or instrumentation without an OTLP endpoint, and the SDK with one', async () => {
    const loaded = async (extra: Record<string, string>) => {
      // main.js's imports all load synchronously; what it starts after them is cut short.
      const script = `require(${JSON.stringify(mainJs)});
        const names = Object.keys(require.cache).filter(
          (file) => file.includes('@opentelemetry/') && !file.includes('@opentelemetry/api/'),
        );
        process.stdout.write(JSON.stringify(names));
        process.exit(0);`;
      const { stdout } = await run('node', ['-e', script], { env: env(extra) });
      return JSON.parse(stdout) as string[];
    };
    expect(await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toEqual([]);
    expect(await loaded({ OTEL_SDK_DISABLED: 'true' })).toEqual([]);
    expect(await loaded({})).toContainEqual(expect.stringContaining('@opentelemetry/sdk-node'));
  });
});
