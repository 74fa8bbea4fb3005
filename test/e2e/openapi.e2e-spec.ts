import zlib from 'node:zlib';
import request from 'supertest';
import { ListClientsQuery } from '../../src/clients/dto/list-clients.query';
import { HEADERS_BUDGET } from '../../src/query/fields';
import { queryParameterNames } from '../../src/query/strict-query.pipe';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { OpenApiChecker } from '../support/openapi';

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: Record<string, any>;
  let checker: OpenApiChecker;

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, [{ id: 'link-1' }]);
    await insertClients(t.dataSource, [
      { id: 'client-1', linkId: 'link-1', status: 'new' },
      { id: 'client-2', linkId: 'link-1', status: 'weird-legacy-status', isDeleted: true },
    ]);
    document = (await request(t.app.getHttpServer()).get('/docs/openapi.json').expect(200)).body;
    checker = new OpenApiChecker(document);
  });
  afterAll(() => t.close());

  it('serves the page, its assets and the document under /docs, and no other file of swagger-ui-dist', async () => {
    const server = t.app.getHttpServer();
    const page = await request(server).get('/docs').expect(200);
    const loaded = [...page.text.matchAll(/(?:href|src)="\.\/docs\/([^"]+)"/g)].map(([, f]) => f);
    expect(loaded.sort()).toEqual([
      'favicon-16x16.png',
      'favicon-32x32.png',
      'swagger-ui-bundle.js',
      'swagger-ui-init.js',
      'swagger-ui-standalone-preset.js',
      'swagger-ui.css',
    ]);
    for (const file of [...loaded, 'openapi.json', 'openapi.yaml'])
      await request(server).get(`/docs/${file}`).expect(200);
    // index.html too: served at /docs/index.html, its relative links point under /docs/docs/.
    for (const file of ['package.json', 'README.md', 'swagger-ui-bundle.js.map', 'index.html']) {
      const response = await request(server).get(`/docs/${file}`).expect(404);
      expect(response.headers['content-type']).toBe('application/problem+json');
      expect(response.body.detail).toBe('No resource exists at this path');
    }
    // At /docs/ the page's links are relative to the slash.
    const slashed = await request(server).get('/docs/').expect(200);
    expect(slashed.text).toContain('src="./swagger-ui-bundle.js"');
  });

  // Anyone may ask for these without a key: each answer is made and compressed once, not per
  // request, so a flood of them costs no memory or CPU per request beyond the write.
  it('serves every file of /docs from memory, compressed once per encoding', async () => {
    const server = t.app.getHttpServer();
    const files = ['/openapi.json', '/openapi.yaml', '/swagger-ui-bundle.js', '/swagger-ui.css'];
    const fetchAll = (encoding: string) =>
      Promise.all(
        files.map((file) =>
          request(server)
            .get(`/docs${file}`)
            .set('Accept-Encoding', encoding)
            .buffer(true)
            .parse((res, done) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => done(null, Buffer.concat(chunks)));
            }),
        ),
      );
    // The first round may wait for the compression started when the app was made.
    const identity = await fetchAll('identity');
    await fetchAll('br');
    await fetchAll('gzip');
    const compressions = [
      jest.spyOn(zlib, 'brotliCompress'),
      jest.spyOn(zlib, 'gzip'),
      // What the compression middleware streams through.
      jest.spyOn(zlib.BrotliCompress.prototype, 'write'),
      jest.spyOn(zlib.Gzip.prototype, 'write'),
    ];
    try {
      for (const encoding of ['br', 'gzip']) {
        const answers = await fetchAll(encoding);
        answers.forEach((res, i) => {
          expect(res.headers['content-encoding']).toBe(encoding);
          // (supertest decodes it)
          expect((res.body as Buffer).equals(identity[i].body as Buffer)).toBe(true);
          expect(res.headers.etag).toBe(identity[i].headers.etag);
        });
      }
      for (const spy of compressions) expect(spy).not.toHaveBeenCalled();
    } finally {
      compressions.forEach((spy) => spy.mockRestore());
    }
    const etag = identity[0].headers.etag;
    await request(server).get('/docs/openapi.json').set('If-None-Match', etag).expect(304);
  });

  it('describes the six operations, each as GET and HEAD, and nothing else', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as object).map(
        ([method, operation]) => `${method} ${path} ${operation.operationId}`,
      ),
    );
    expect(operations.sort()).toEqual([
      'get /api/data/changes/clients clientChanges',
      'get /api/data/changes/links linkChanges',
      'get /api/data/clients listClients',
      'get /api/data/clients/{id} getClient',
      'get /api/data/links listLinks',
      'get /api/data/links/{id} getLink',
      'head /api/data/changes/clients clientChangesHead',
      'head /api/data/changes/links linkChangesHead',
      'head /api/data/clients listClientsHead',
      'head /api/data/clients/{id} getClientHead',
      'head /api/data/links listLinksHead',
      'head /api/data/links/{id} getLinkHead',
    ]);
  });

  it('declares bearer authentication for every operation', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(document.security).toEqual([{ bearer: [] }]);
  });

  it('lists the List Clients parameters with their rules', () => {
    const parameters = document.paths['/api/data/clients'].get.parameters;
    const byName = Object.fromEntries(parameters.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual([...queryParameterNames(ListClientsQuery)].sort());
    for (const parameter of parameters)
      expect(parameter).toMatchObject({ in: 'query', required: false });
    expect(byName.page.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 2147483647,
    });
    expect(byName.page.schema.default).toBeUndefined();
    expect(byName.limit.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
    });
    expect(byName.linkId.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    expect(byName.isDeleted.schema).toMatchObject({ type: 'boolean' });
    expect(byName.status.schema).toMatchObject({ type: 'string', enum: ['new', 'connected'] });
  });

  it('documents the problem+json errors of each operation', () => {
    const statuses = (path: string) =>
      Object.entries(document.paths[path].get.responses)
        .filter(
          ([, response]) =>
            'application/problem+json' in ((response as { content?: object }).content ?? {}),
        )
        .map(([status]) => status);
    // Every route answers these; a route with an id also 404.
    const errors = ['400', '401', '403', '413', '414', '429', '431', '500', '503'];
    const withNotFound = [...errors, '404'].sort();
    expect(statuses('/api/data/links')).toEqual(errors);
    expect(statuses('/api/data/clients')).toEqual(errors);
    expect(statuses('/api/data/links/{id}')).toEqual(withNotFound);
    expect(statuses('/api/data/clients/{id}')).toEqual(withNotFound);
  });

  const server = () => request(t.app.getHttpServer());

  it("shows each data route's own 400 and 404, as the API answers them", async () => {
    const dataPaths = Object.keys(document.paths).filter((path) => path.startsWith('/api/data/'));
    expect(dataPaths).toHaveLength(6);
    for (const path of dataPaths) {
      const example = (status: string) =>
        document.paths[path].get.responses[status]?.content['application/problem+json'].example;
      const sent = path.replace('{id}', 'no-such-id');
      const badQuery = example('400');
      const query = badQuery.errors.map(({ name }: { name: string }) => `${name}=0`).join('&');
      const invalid = await server().get(`${sent}?${query}`).set(AUTH).expect(400);
      expect({ path, ...badQuery }).toMatchObject({
        path,
        instance: invalid.body.instance,
        detail: invalid.body.detail,
        errors: invalid.body.errors,
      });
      if (!path.endsWith('{id}')) continue;
      const missing = await server().get(sent).set(AUTH).expect(404);
      expect({ path, ...example('404') }).toMatchObject({
        path,
        instance: missing.body.instance,
        detail: missing.body.detail,
      });
    }
  });
  const responses: [string, string, () => request.Test, number][] = [
    ['listLinks', '/api/data/links', () => server().get('/api/data/links').set(AUTH), 200],
    ['listLinks', '/api/data/links', () => server().get('/api/data/links?x=1').set(AUTH), 400],
    ['listLinks', '/api/data/links', () => server().get('/api/data/links'), 401],
    [
      'getLink',
      '/api/data/links/{id}',
      () => server().get('/api/data/links/link-1').set(AUTH),
      200,
    ],
    ['getLink', '/api/data/links/{id}', () => server().get('/api/data/links/nope').set(AUTH), 404],
    ['listClients', '/api/data/clients', () => server().get('/api/data/clients').set(AUTH), 200],
    [
      'listClients',
      '/api/data/clients',
      () => server().get('/api/data/clients?page=9').set(AUTH),
      200,
    ],
    [
      'listClients',
      '/api/data/clients',
      () => server().get('/api/data/clients?limit=0&x=1').set(AUTH),
      400,
    ],
    [
      'listClients',
      '/api/data/clients',
      () => server().get('/api/data/clients').set('Authorization', 'Bearer x'),
      401,
    ],
    [
      'getClient',
      '/api/data/clients/{id}',
      () => server().get('/api/data/clients/client-2').set(AUTH),
      200,
    ],
    [
      'getClient',
      '/api/data/clients/{id}',
      () => server().get('/api/data/clients/nope').set(AUTH),
      404,
    ],
  ];

  it.each(responses)(
    '%s: a real %s response with status %s validates against the document',
    async (_op, path, send, status) => {
      const res = await send().expect(status);
      checker.expectValid(res, path);
    },
  );

  it('cursor responses validate against the document', async () => {
    const first = await server().get('/api/data/clients?limit=1').set(AUTH).expect(200);
    checker.expectValid(first, '/api/data/clients');
    expect(first.body.meta.nextCursor).toEqual(expect.any(String));
    const next = server().get(`/api/data/clients?cursor=${first.body.meta.nextCursor}`);
    checker.expectValid(await next.set(AUTH).expect(200), '/api/data/clients');
    const bad = await server().get('/api/data/clients?cursor=x&page=1').set(AUTH).expect(400);
    checker.expectValid(bad, '/api/data/clients');
  });

  // A stateful tester's or generated client's walk: each link evaluated as OpenAPI says
  // (`$response.body#<JSON pointer>`, `$request.query.<name>`; a parameter the request did not
  // give stays absent), then sent.
  it.each([
    ['/api/data/clients', { linkId: 'link-1', limit: '1' }, ['client-2']],
    ['/api/data/changes/clients', { linkId: 'link-1', limit: '1' }, ['client-2']],
    ['/api/data/changes/links', { limit: '1' }, []],
  ])('%s links meta.nextCursor to the request for the next page', async (path, query, after) => {
    const operation = document.paths[path].get;
    const { nextPage } = operation.responses['200'].links;
    // The same operation, carrying every parameter a cursor is bound to, and the page size.
    expect(nextPage.operationId).toBe(operation.operationId);
    const carried = operation.parameters
      .map(({ name }: { name: string }) => name)
      .filter((name: string) => !['cursor', 'page', 'wait'].includes(name));
    expect(Object.keys(nextPage.parameters).sort()).toEqual(['cursor', ...carried].sort());

    const first = await server().get(path).query(query).set(AUTH).expect(200);
    const evaluate = (expression: string) => {
      const fromRequest = /^\$request\.query\.(.+)$/.exec(expression);
      if (fromRequest) return (query as Record<string, string>)[fromRequest[1]];
      const pointer = /^\$response\.body#(\/.*)$/.exec(expression) as RegExpExecArray;
      return pointer[1]
        .split('/')
        .slice(1)
        .reduce((value, key) => value[key], first.body);
    };
    const nextQuery = Object.fromEntries(
      Object.entries<string>(nextPage.parameters)
        .map(([name, expression]) => [name, evaluate(expression)])
        .filter(([, value]) => value !== undefined),
    );
    expect(nextQuery).toEqual({ ...query, cursor: first.body.meta.nextCursor });
    const next = await server().get(path).query(nextQuery).set(AUTH).expect(200);
    checker.expectValid(next, path);
    expect(next.body.data.map(({ id }: { id: string }) => id)).toEqual(after);
  });

  // The widest character percent-encoded: 4 UTF-8 bytes, 12 bytes on the wire.
  const WIDEST = '😀';
  const otherHeaders = { ...AUTH, 'X-Padding': 'x'.repeat(HEADERS_BUDGET - 300) };

  it('promises lengths that hold for every value, with the other headers in their budget', async () => {
    const at = (path: string, name: string) =>
      document.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema
        .maxLength;
    for (const path of ['/api/data/links/{id}', '/api/data/clients/{id}']) {
      const id = WIDEST.repeat(at(path, 'id'));
      const url = path.replace('{id}', encodeURIComponent(id));
      await server().get(url).set(otherHeaders).expect(404);
    }
    for (const path of ['/api/data/clients', '/api/data/changes/clients']) {
      const query = new URLSearchParams({
        limit: '1000',
        linkId: WIDEST.repeat(at(path, 'linkId')),
        ...(path === '/api/data/clients' && { isDeleted: 'false', status: 'connected' }),
        cursor: 'A'.repeat(at(path, 'cursor')),
      });
      const res = await server().get(`${path}?${query}`).set(otherHeaders).expect(400);
      expect(res.body.errors).toEqual([{ name: 'cursor', reason: expect.any(String) }]);
    }
  });

  it('has no default that a generated client sending it would turn into a 400', async () => {
    for (const path of [
      '/api/data/clients',
      '/api/data/changes/clients',
      '/api/data/changes/links',
    ]) {
      const first = await server().get(`${path}?limit=1`).set(AUTH).expect(200);
      const defaults = document.paths[path].get.parameters
        .filter((p: { schema: { default?: unknown } }) => p.schema.default !== undefined)
        .map(
          (p: { name: string; schema: { default: unknown } }) => `${p.name}=${p.schema.default}`,
        );
      const cursor = encodeURIComponent(first.body.meta.nextCursor);
      await server()
        .get(`${path}?${[...defaults, `cursor=${cursor}`].join('&')}`)
        .set(AUTH)
        .expect(200);
    }
  });

  it('a 405, which no GET or HEAD gets, is the problem the description names', async () => {
    const res = await server().delete('/api/data/clients/client-1').set(AUTH).expect(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    checker.expectProblem(res, 'DELETE /api/data/clients/client-1');
    for (const item of Object.values<any>(document.paths))
      expect(Object.keys(item.get.responses)).not.toContain('405');
    expect(document.info.description).toContain('405 problem with `Allow: GET, HEAD`');
    // docs/api.md, Order of checks: the key before the method.
    await server().delete('/api/data/clients/client-1').expect(401);
    expect(document.info.description).toContain(
      'the key is checked first, so without a valid key it is a 401',
    );
  });

  it('the checker itself rejects a body that breaks the schema', async () => {
    const res = await server().get('/api/data/links/link-1').set(AUTH).expect(200);
    res.body.createdAt = 42;
    expect(() => checker.expectValid(res, '/api/data/links/{id}')).toThrow(/does not match/);
  });

  it('is exact: closed shapes, integer counts, an opaque bearer key, bounded ids and cursor', async () => {
    expect(document.components.securitySchemes.bearer.bearerFormat).toBeUndefined();
    for (const [name, schema] of Object.entries<any>(document.components.schemas))
      expect([name, schema.additionalProperties]).toEqual([name, false]);
    const meta = document.components.schemas.ClientsPageMeta.properties;
    for (const field of ['page', 'limit', 'total', 'totalPages'])
      expect(meta[field].type).toBe('integer');
    expect(document.components.schemas.LinksListMeta.properties.total.type).toBe('integer');
    const cursor = document.paths['/api/data/clients'].get.parameters.find(
      (p: { name: string }) => p.name === 'cursor',
    );
    expect(cursor.schema).toMatchObject({ minLength: 1, maxLength: 10240 });
    // Shown in the description, not as an example the docs page would send on every call.
    expect(cursor.schema.example).toBeUndefined();
    expect(cursor.description).toMatch(/such as `[\w-]+\.[\w-]+`/);
    for (const path of ['/api/data/links/{id}', '/api/data/clients/{id}']) {
      const [id] = document.paths[path].get.parameters;
      expect(id.schema).toMatchObject({ maxLength: 1024, example: expect.any(String) });
    }
    expect(document.info.description).toContain('trailing slash');

    // A page by number missing `total` matches neither closed shape.
    const page = await server().get('/api/data/clients?limit=1').set(AUTH).expect(200);
    delete page.body.meta.total;
    expect(() => checker.expectValid(page, '/api/data/clients')).toThrow(/does not match/);
  });

  it('documents 304, 413, 414 and 431, and the headers of every answer', () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      const responses = item.get.responses;
      expect([path, ...Object.keys(responses)]).toEqual(
        expect.arrayContaining([path, '304', '413', '414', '431']),
      );
      expect(Object.keys(responses['200'].headers)).toEqual(
        expect.arrayContaining([
          'ETag',
          'Cache-Control',
          'Vary',
          'X-Request-Id',
          'RateLimit-Limit',
        ]),
      );
      expect(Object.keys(responses['429'].headers)).toEqual(
        expect.arrayContaining(['Retry-After', 'Cache-Control', 'RateLimit-Remaining']),
      );
    }
  });

  it('the contract check fails on an undocumented header or status', async () => {
    const res = await server().get('/api/data/links/link-1').set(AUTH).expect(200);
    expect(() => checker.expectConforms('GET', '/api/data/links/link-1/', res)).not.toThrow();
    res.headers.allow = 'GET, HEAD';
    expect(() => checker.expectConforms('GET', '/api/data/links/link-1', res)).toThrow(
      /undocumented header allow/,
    );
    delete res.headers.allow;
    res.status = 418;
    expect(() => checker.expectConforms('GET', '/api/data/links/link-1', res)).toThrow(
      /undocumented status/,
    );
  });
});
