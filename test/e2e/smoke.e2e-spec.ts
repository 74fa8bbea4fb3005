import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertLinks } from '../support/fixtures';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lists links', async () => {
    await insertLinks(t.dataSource, [
      { id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' },
    ]);
    const res = await request(t.app.getHttpServer()).get('/api/data/links').set(AUTH).expect(200);
    expect(res.body).toEqual({
      data: [
        { id: 'a', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' },
      ],
      meta: { total: 1 },
    });
  });
});
