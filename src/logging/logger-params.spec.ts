import { EventEmitter } from 'node:events';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import pinoHttp, { Options } from 'pino-http';
import { loggerParams } from './logger-params';

// Counts the requests handed to pino's standard request serializer.
let requestsSerialized = 0;
jest.mock('pino-std-serializers', () => {
  const actual = jest.requireActual('pino-std-serializers');
  return {
    ...actual,
    req: (req: unknown) => {
      requestsSerialized++;
      return actual.req(req);
    },
  };
});

function requestLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const params = loggerParams({ level: 'info', format: 'json', apiKeys: [] }, destination);
  const [options] = params.pinoHttp as [Options, Writable];
  return { lines, middleware: pinoHttp(options, destination) };
}

function exchange() {
  const req = Object.assign(new EventEmitter(), {
    method: 'GET',
    url: '/api/data/clients/c-1',
    headers: { authorization: 'Bearer some-key', 'x-request-id': 'req-1' },
    socket: {},
  });
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    locals: {},
    setHeader: () => undefined,
  });
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse };
}

describe('the request logger', () => {
  it('writes one line per request, and never serializes the request itself', async () => {
    const { lines, middleware } = requestLogger();
    const { req, res } = exchange();
    middleware(req, res, () => undefined);
    res.emit('finish');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ requestId: 'req-1', status: 200, msg: 'request completed' });
    expect(lines[0]).not.toHaveProperty('req');
    expect(requestsSerialized).toBe(0);
  });

  // A child of a per-request child would make a per-request object a prototype: a hidden class
  // per request, which kept every finished request alive until a full garbage collection.
  it('binds the requestId with one child of the root logger per request', () => {
    const { middleware } = requestLogger();
    const root = middleware.logger;
    const child = root.child;
    let children = 0;
    root.child = function (this: typeof root, ...args: Parameters<typeof child>) {
      children++;
      return child.apply(this, args);
    } as typeof child;
    const { req, res } = exchange();
    middleware(req, res, () => undefined);
    expect(children).toBe(1);
    expect(Object.getPrototypeOf(req.log)).toBe(root);
    expect(req.log.bindings()).toEqual({ requestId: 'req-1' });
  });
});
