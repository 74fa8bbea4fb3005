import request from 'supertest';
import { createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { expectProblem } from '../support/problem';

const CHALLENGE = 'Bearer realm="api"';
const INVALID_TOKEN = 'Bearer realm="api", error="invalid_token"';

describe('Authentication (docs/api.md, Authentication)', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, [{ id: 'link-1' }]);
    await insertClients(t.dataSource, [{ id: 'client-1', linkId: 'link-1', status: 'new' }]);
  });
  afterAll(() => t.close());

  const expect401 = async (res: request.Response, challenge: string) => {
    expect(res.headers['www-authenticate']).toBe(challenge);
    expectProblem(res, {
      status: 401,
      title: 'Unauthorized',
      detail: 'A valid API key is required: Authorization: Bearer <key>',
    });
  };

  it.each([
    ['Bearer test-key-primary'],
    ['bearer test-key-primary'],
    ['BEARER test-key-primary'],
    ['BeArEr test-key-primary'],
    ['Bearer test-key-rotated'],
  ])('accepts %j', async (authorization) => {
    await request(server())
      .get('/api/data/clients')
      .set('Authorization', authorization)
      .expect(200);
  });

  it.each([
    '/api/data/links',
    '/api/data/links/link-1',
    '/api/data/clients',
    '/api/data/clients/client-1',
  ])('requires a key on %s, answering 401 with a bare challenge', async (path) => {
    await expect401(await request(server()).get(path), CHALLENGE);
  });

  it.each([
    ['an unknown key', 'Bearer wrong-key'],
    ['a prefix of a key', 'Bearer test-key'],
    ['a key with a suffix', 'Bearer test-key-primaryX'],
    ['a key in the wrong case', 'Bearer TEST-KEY-PRIMARY'],
    ['two spaces before the key', 'Bearer  test-key-primary'],
    ['the whole key list', 'Bearer test-key-primary,test-key-rotated'],
    ['a key followed by more words', 'Bearer test-key-primary extra'],
  ])('rejects %s with error="invalid_token"', async (_case, authorization) => {
    await expect401(
      await request(server()).get('/api/data/clients').set('Authorization', authorization),
      INVALID_TOKEN,
    );
  });

  it.each([
    ['another scheme', 'Basic dGVzdC1rZXktcHJpbWFyeTo='],
    ['the key without a scheme', 'test-key-primary'],
    ['the scheme without a key', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['a tab instead of the space', 'Bearer\ttest-key-primary'],
    ['an empty header', ''],
  ])('rejects %s with a bare challenge', async (_case, authorization) => {
    await expect401(
      await request(server()).get('/api/data/clients').set('Authorization', authorization),
      CHALLENGE,
    );
  });

  it('does not accept a key in the query string', async () => {
    await expect401(
      await request(server()).get('/api/data/clients?access_token=test-key-primary'),
      CHALLENGE,
    );
  });

  it('does not accept a key in a form or JSON body', async () => {
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', 'access_token=test-key-primary'],
      ['application/json', '{"access_token":"test-key-primary"}'],
    ]) {
      await expect401(
        await request(server()).get('/api/data/clients').set('Content-Type', type).send(body),
        CHALLENGE,
      );
    }
  });

  it('with a valid header, an access_token in the query is just an unknown parameter', async () => {
    const res = await request(server())
      .get('/api/data/clients?access_token=whatever')
      .set('Authorization', 'Bearer test-key-primary')
      .expect(400);
    expect(res.body.errors).toEqual([{ name: 'access_token', reason: 'is not a known parameter' }]);
  });

  it.each([
    ['an unknown client id', 'get', '/api/data/clients/nope'],
    ['an existing client id', 'get', '/api/data/clients/client-1'],
    ['an invalid query', 'get', '/api/data/clients?page=0&foo=1'],
    ['a query on a Get', 'get', '/api/data/links/link-1?x=1'],
    ['another method', 'post', '/api/data/clients'],
    ['HEAD', 'head', '/api/data/links'],
  ] as const)('answers 401 first, whatever the request: %s', async (_case, method, path) => {
    const res = await request(server())[method](path).set('Authorization', 'Bearer nope');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN);
  });

  it('keeps the API docs public', async () => {
    const page = await request(server()).get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const document = await request(server()).get('/docs/openapi.json').expect(200);
    expect(document.body.openapi).toMatch(/^3\./);
  });
});
