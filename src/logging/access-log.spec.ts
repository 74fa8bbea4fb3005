import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { assignRequestId } from './request-id';
import { logRequest } from './access-log';
import { loggerParams } from './logger-params';

const lines: Record<string, unknown>[] = [];
const destination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(JSON.parse(chunk.toString()));
    done();
  },
});
// Builds the application's root logger, as the app does, writing into `lines`.
new PinoLogger(
  loggerParams({ level: 'info', format: 'json', apiKeys: ['secret-key'] }, destination),
);

const ROUTE = '/api/data/clients/:id';

function exchange(url: string, status = 200, writableFinished = true, headersSent = true) {
  const req = Object.assign(new EventEmitter(), {
    method: 'GET',
    url,
    originalUrl: url,
    headers: { authorization: 'Bearer secret-key', 'x-request-id': 'req-1' },
    route: { path: '/:id' },
    baseUrl: '/api/data/clients',
  });
  const res = Object.assign(new EventEmitter(), {
    statusCode: status,
    writableFinished,
    headersSent,
    locals: { apiKeyId: 'env-1' },
    setHeader: () => undefined,
  });
  assignRequestId(req as unknown as Request, res as unknown as Response);
  return { req: req as unknown as Request, res: res as unknown as Response };
}

const written = () => new Promise((resolve) => setImmediate(resolve));

describe('the access log', () => {
  beforeEach(() => (lines.length = 0));

  it('writes one line, naming the key by its id', async () => {
    const { req, res } = exchange('/api/data/clients/secret-key?x=1');
    logRequest(req, res, ROUTE, 2.6);
    await written();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        requestId: 'req-1',
        method: 'GET',
        route: '/api/data/clients/:id',
        path: '/api/data/clients/[REDACTED]',
        status: 200,
        durationMs: 3,
        key: 'env-1',
        msg: 'request completed',
      }),
    ]);
  });

  it('writes a failed request at error level', async () => {
    const { req, res } = exchange('/api/data/clients/c-1', 500);
    logRequest(req, res, ROUTE, 1);
    await written();
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'request failed' })]);
  });

  it('writes a request whose client went away before its response at warn level', async () => {
    const { req, res } = exchange('/api/data/clients/c-1', 200, false);
    logRequest(req, res, ROUTE, 1);
    await written();
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, status: 200, msg: 'request aborted' }),
    ]);
  });

  it('gives no status to a request whose client left before the response began', async () => {
    const { req, res } = exchange('/api/data/clients/c-1', 200, false, false);
    logRequest(req, res, ROUTE, 1);
    await written();
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, status: null, msg: 'request aborted' }),
    ]);
  });

  it('logs no path past 1,024 characters, so no caller can write a line of 16 KiB', async () => {
    // Nor any part of a key in it: a cut would keep a part the mask does not recognise.
    const { req, res } = exchange(`/api/data/clients/${'%22'.repeat(340)}x/secret-key`, 404);
    logRequest(req, res, ROUTE, 1);
    await written();
    expect(lines).toEqual([expect.objectContaining({ path: '(a path of 1050 characters)' })]);
    expect(JSON.stringify(lines)).not.toMatch(/%22|secret/);
  });

  it('leaves probes out, in any case as the router matches them', async () => {
    for (const url of ['/health/live', '/health/ready?x', '/HEALTH/Live']) {
      const { req, res } = exchange(url);
      logRequest(req, res, '<unmatched>', 1);
    }
    await written();
    expect(lines).toHaveLength(0);
  });

  // The scrape has a port of its own: on the public one, /metrics is a probe worth a line.
  it('logs a request for /metrics on the public port', async () => {
    const { req, res } = exchange('/metrics');
    logRequest(req, res, '<unmatched>', 1);
    await written();
    expect(lines).toEqual([expect.objectContaining({ path: '/metrics' })]);
  });

  // pino-http's middleware made a child logger per request (and kept two arrays, three
  // listeners and an async context).
  it('makes no logger per request', async () => {
    const child = jest.spyOn(PinoLogger.root, 'child');
    const { req, res } = exchange('/api/data/clients/c-1');
    logRequest(req, res, ROUTE, 1);
    await written();
    expect(lines).toHaveLength(1);
    expect(child).not.toHaveBeenCalled();
  });
});
