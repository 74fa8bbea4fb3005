import { Logger } from '@nestjs/common';
import request from 'supertest';
import { ClientsService } from '../../src/clients/clients.service';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { expectProblem } from '../support/problem';

const SECRET_SQL = 'SELECT password FROM secret_table WHERE key = $1';

describe('Errors (docs/api.md, Errors)', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp({
      // A service fault the way a driver reports one: the message carries SQL.
      override: (builder) =>
        builder.overrideProvider(ClientsService).useValue({
          list: () => Promise.reject(new Error(`syntax error in "${SECRET_SQL}"`)),
          findOne: () => Promise.reject(new TypeError('Cannot read properties of undefined')),
        }),
    });
  });
  afterAll(() => t.close());

  describe('404 for unknown paths', () => {
    it.each([
      '/',
      '/api',
      '/api/data',
      '/api/data/nope',
      '/api/data/links/a/b',
      '/api/data/clientsx',
    ])('%s', async (path) => {
      const res = await request(server()).get(path).set(AUTH).expect(404);
      expectProblem(res, {
        status: 404,
        title: 'Not Found',
        detail: 'No resource exists at this path',
        instance: path,
      });
    });

    it('does not repeat the query string back', async () => {
      const res = await request(server()).get('/api/data/nope?token=s3cr3t').set(AUTH).expect(404);
      expect(res.text).not.toContain('s3cr3t');
    });
  });

  describe('405 for other methods', () => {
    const paths = [
      '/api/data/links',
      '/api/data/links/x',
      '/api/data/clients',
      '/api/data/clients/x',
      '/api/data/changes/links',
      '/api/data/changes/clients',
      // The public paths too.
      '/health/live',
      '/health/ready',
      '/docs',
      '/docs/openapi.json',
    ];
    const methods = ['post', 'put', 'patch', 'delete', 'options'] as const;
    it.each(paths.flatMap((path) => methods.map((method) => [method, path] as const)))(
      '%s %s',
      async (method, path) => {
        const res = await request(server())[method](path).set(AUTH).expect(405);
        expect(res.headers.allow).toBe('GET, HEAD');
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        if (method !== 'options')
          expect(res.body).toMatchObject({
            status: 405,
            title: 'Method Not Allowed',
            instance: path,
          });
      },
    );

    it('on a public path, without a key', async () => {
      const res = await request(server()).post('/health/live').expect(405);
      expect(res.headers.allow).toBe('GET, HEAD');
    });
  });

  describe('request ids', () => {
    it('generates one when none is sent, in the header and the body', async () => {
      const res = await request(server()).get('/api/data/nope').set(AUTH).expect(404);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
    });

    it('echoes an incoming X-Request-Id', async () => {
      const res = await request(server())
        .get('/api/data/nope')
        .set(AUTH)
        .set('X-Request-Id', 'trace-123.abc:9')
        .expect(404);
      expect(res.headers['x-request-id']).toBe('trace-123.abc:9');
      expect(res.body.requestId).toBe('trace-123.abc:9');
    });

    it.each(['has spaces', 'x'.repeat(129), '<script>', 'a\u00e9'])(
      'replaces an unusable one (%j)',
      async (id) => {
        const res = await request(server())
          .get('/api/data/nope')
          .set(AUTH)
          .set('X-Request-Id', id)
          .expect(404);
        expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      },
    );

    it('is on successful responses too', async () => {
      const res = await request(server())
        .get('/docs/openapi.json')
        .set('X-Request-Id', 'ok-1')
        .expect(200);
      expect(res.headers['x-request-id']).toBe('ok-1');
    });
  });

  describe('400 for malformed paths', () => {
    it.each(['/api/data/clients/%FF', '/api/data/clients/%E0%A4%A', '/api/data/links/%'])(
      '%s',
      async (path) => {
        const res = await request(server())
          .get(path)
          .set(AUTH)
          .expect(400)
          .expect('Content-Type', /^application\/problem\+json/);
        expect(res.body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400 });
      },
    );
  });

  describe('500 for the unexpected', () => {
    it.each(['/api/data/clients', '/api/data/clients/some-id'])(
      '%s: a bare body; details only in the log',
      async (path) => {
        const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
        try {
          const res = await request(server())
            .get(path)
            .set(AUTH)
            .set('X-Request-Id', 'fault-1')
            .expect(500);
          expectProblem(res, {
            status: 500,
            title: 'Internal Server Error',
            detail: 'An unexpected error occurred; it has been logged',
            instance: path,
          });
          expect(res.body.requestId).toBe('fault-1');
          expect(res.text).not.toMatch(/SELECT|secret|TypeError|at .*\.ts/);
          expect(logged).toHaveBeenCalledWith(
            expect.stringContaining('fault-1'),
            expect.stringMatching(/Error/),
          );
        } finally {
          logged.mockRestore();
        }
      },
    );
  });
});
