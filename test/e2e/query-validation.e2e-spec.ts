import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { expectProblem } from '../support/problem';

const PAGE = 'must be an integer from 1 to 2147483647';
const LIMIT = 'must be an integer from 1 to 1000';
const LINK_ID = 'must be a non-empty string of at most 255 characters';
const IS_DELETED = 'must be true or false';
const STATUS = 'must be one of: new, connected';
const UNKNOWN = 'is not a known parameter';
const REPEATED = 'must be given only once';
const MALFORMED = 'must be valid percent-encoded UTF-8';

describe('List Clients query validation (docs/api.md, Endpoints)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const cases: [string, { name: string; reason: string }[]][] = [
    ['page=0', [{ name: 'page', reason: PAGE }]],
    ['page=-1', [{ name: 'page', reason: PAGE }]],
    ['page=1.5', [{ name: 'page', reason: PAGE }]],
    ['page=1.0', [{ name: 'page', reason: PAGE }]],
    ['page=abc', [{ name: 'page', reason: PAGE }]],
    ['page=', [{ name: 'page', reason: PAGE }]],
    ['page', [{ name: 'page', reason: PAGE }]],
    ['page=1e2', [{ name: 'page', reason: PAGE }]],
    ['page=0x10', [{ name: 'page', reason: PAGE }]],
    ['page=%2B2', [{ name: 'page', reason: PAGE }]],
    ['page=+2', [{ name: 'page', reason: PAGE }]],
    ['page=%202', [{ name: 'page', reason: PAGE }]],
    ['page=2%20', [{ name: 'page', reason: PAGE }]],
    ['page=%EF%BC%92', [{ name: 'page', reason: PAGE }]], // fullwidth digit two
    ['page=2147483648', [{ name: 'page', reason: PAGE }]],
    ['page=99999999999999999999999', [{ name: 'page', reason: PAGE }]],
    ['page=1&page=2', [{ name: 'page', reason: REPEATED }]],
    ['page=1&page=1', [{ name: 'page', reason: REPEATED }]],
    ['limit=0', [{ name: 'limit', reason: LIMIT }]],
    ['limit=1001', [{ name: 'limit', reason: LIMIT }]],
    ['limit=', [{ name: 'limit', reason: LIMIT }]],
    ['limit=10.0', [{ name: 'limit', reason: LIMIT }]],
    ['limit=10&limit=20', [{ name: 'limit', reason: REPEATED }]],
    ['linkId=', [{ name: 'linkId', reason: LINK_ID }]],
    [`linkId=${'x'.repeat(256)}`, [{ name: 'linkId', reason: LINK_ID }]],
    ['linkId=a&linkId=b', [{ name: 'linkId', reason: REPEATED }]],
    ['isDeleted=yes', [{ name: 'isDeleted', reason: IS_DELETED }]],
    ['isDeleted=TRUE', [{ name: 'isDeleted', reason: IS_DELETED }]],
    ['isDeleted=1', [{ name: 'isDeleted', reason: IS_DELETED }]],
    ['isDeleted=0', [{ name: 'isDeleted', reason: IS_DELETED }]],
    ['isDeleted=', [{ name: 'isDeleted', reason: IS_DELETED }]],
    ['isDeleted=false&isDeleted=false', [{ name: 'isDeleted', reason: REPEATED }]],
    ['status=deleted', [{ name: 'status', reason: STATUS }]],
    ['status=suspended', [{ name: 'status', reason: STATUS }]],
    ['status=NEW', [{ name: 'status', reason: STATUS }]],
    ['status=', [{ name: 'status', reason: STATUS }]],
    ['status=new&status=connected', [{ name: 'status', reason: REPEATED }]],
    ['status[]=new', [{ name: 'status[]', reason: UNKNOWN }]],
    ['status[0]=new', [{ name: 'status[0]', reason: UNKNOWN }]],
    ['filter[status]=new', [{ name: 'filter[status]', reason: UNKNOWN }]],
    ['[page]=2', [{ name: '[page]', reason: UNKNOWN }]],
    ['__proto__=1', [{ name: '__proto__', reason: UNKNOWN }]],
    ['__proto__[page]=1', [{ name: '__proto__[page]', reason: UNKNOWN }]],
    ['constructor=1', [{ name: 'constructor', reason: UNKNOWN }]],
    ['constructor[prototype][x]=1', [{ name: 'constructor[prototype][x]', reason: UNKNOWN }]],
    ['toString=1', [{ name: 'toString', reason: UNKNOWN }]],
    ['hasOwnProperty=1', [{ name: 'hasOwnProperty', reason: UNKNOWN }]],
    ['Page=2', [{ name: 'Page', reason: UNKNOWN }]],
    ['statu=new', [{ name: 'statu', reason: UNKNOWN }]],
    ['access_token=test-key-primary', [{ name: 'access_token', reason: UNKNOWN }]],
    ['=x', [{ name: '', reason: UNKNOWN }]],
    // As in a path: a % that starts no escape, or escapes that are not UTF-8, are not read as
    // something else (U+FFFD, or the % itself) but refused.
    ['linkId=%FF', [{ name: 'linkId', reason: MALFORMED }]],
    ['linkId=%E0%A4%A', [{ name: 'linkId', reason: MALFORMED }]],
    ['linkId=%ED%A0%80', [{ name: 'linkId', reason: MALFORMED }]], // a surrogate
    ['linkId=100%', [{ name: 'linkId', reason: MALFORMED }]],
    ['status=new&linkId=a%ZZ', [{ name: 'linkId', reason: MALFORMED }]],
    ['limit=%FF', [{ name: 'limit', reason: MALFORMED }]],
    ['%FF=1', [{ name: '%FF', reason: UNKNOWN }]],
    ['foo=1&foo=2', [{ name: 'foo', reason: UNKNOWN }]],
    [
      'limit=1001&foo=1&status=deleted&page=0&isDeleted=yes&linkId=&bar',
      [
        { name: 'limit', reason: LIMIT },
        { name: 'foo', reason: UNKNOWN },
        { name: 'status', reason: STATUS },
        { name: 'page', reason: PAGE },
        { name: 'isDeleted', reason: IS_DELETED },
        { name: 'linkId', reason: LINK_ID },
        { name: 'bar', reason: UNKNOWN },
      ],
    ],
    [
      'status=new&status=new&page=x',
      [
        { name: 'status', reason: REPEATED },
        { name: 'page', reason: PAGE },
      ],
    ],
  ];

  it.each(cases)('?%s is a 400 naming each offending parameter', async (query, errors) => {
    const res = await request(t.app.getHttpServer())
      .get(`/api/data/clients?${query}`)
      .set(AUTH)
      .expect(400);
    expectProblem(res, {
      status: 400,
      title: 'Bad Request',
      detail: 'Invalid query parameters',
      instance: '/api/data/clients',
      errors,
    });
  });

  it.each([
    '',
    '?',
    '?&',
    '?page=1&limit=100',
    '?isDeleted=true',
    '?isDeleted=false',
    '?status=new',
    '?status=connected',
    '?linkId=%00',
    '?linkId=%EF%BF%BD',
    '?linkId=%E2%82%AC+%25',
  ])('%s is valid', async (query) => {
    await request(t.app.getHttpServer()).get(`/api/data/clients${query}`).set(AUTH).expect(200);
  });

  it('answers an enormous query with a 4xx, not a crash', async () => {
    const query = Array.from({ length: 2000 }, (_, i) => `p${i}=1`).join('&');
    const res = await request(t.app.getHttpServer()).get(`/api/data/clients?${query}`).set(AUTH);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    if (res.status === 400) expect(res.body.errors).toHaveLength(2000);
  });
});
