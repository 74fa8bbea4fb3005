import request from 'supertest';
import { LinksRepository } from '../../src/links/links.repository';
import { KEPT_LIST_MAX_BYTES, LinksService } from '../../src/links/links.service';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { expectProblem } from '../support/problem';
import { waitFor } from '../support/wait-for';
import { WorkLimits } from '../../src/limits/work-limits';
import { waitingWork } from '../support/work-limits';

// More links than a kept body holds (~100 bytes each): List Links streams them.
const STREAMED_LINKS = Math.ceil(KEPT_LIST_MAX_BYTES / 80);

describe('List Links: what a request costs', () => {
  let t: TestApp;
  let repository: LinksRepository;
  const get = (headers: Record<string, string> = {}) =>
    request(t.app.getHttpServer()).get('/api/data/links').set(AUTH).set(headers);

  beforeAll(async () => {
    t = await createTestApp({
      env: { MAX_CONCURRENT_LIST_RENDERS: '1', MAX_REQUESTS_PER_KEY: '100' },
    });
    repository = t.app.get(LinksRepository);
    await t.dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || g FROM generate_series(1, 10) g`,
    );
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const change = () => t.dataSource.query(`UPDATE links SET id = id WHERE id = 'link-1'`);

  it('answers a 304 for the kept list without reading its rows', async () => {
    const first = await get().expect(200);
    const renders = jest.spyOn(repository, 'inOneSnapshot');
    await get({ 'If-None-Match': first.headers.etag }).expect(304);
    const again = await get().expect(200);
    expect(again.text).toBe(first.text);
    expect(renders).not.toHaveBeenCalled();
  });

  it('shares one read of the content and one render among concurrent requests', async () => {
    await change();
    // The first read is held until all twenty requests have asked for the content, as on a
    // large table, however long a busy machine takes to send them.
    const arrived = jest.spyOn(t.app.get(LinksService), 'listAll');
    const content = repository.content.bind(repository);
    const contentReads = jest.spyOn(repository, 'content').mockImplementation(async () => {
      if (contentReads.mock.calls.length === 1) {
        await waitFor(() => arrived.mock.calls.length === 20, { what: 'the twenty requests' });
      }
      return content();
    });
    const renders = jest.spyOn(repository, 'inOneSnapshot');
    const answers = await Promise.all(Array.from({ length: 20 }, () => get().expect(200)));
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    expect(new Set(answers.map((res) => res.headers.etag)).size).toBe(1);
    // One read for the first request, then one for all those that came during it.
    expect(contentReads).toHaveBeenCalledTimes(2);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  it('has a render past the cap wait its turn, and refuses one more with a 503 and a short Retry-After', async () => {
    await change();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const inOneSnapshot = repository.inOneSnapshot.bind(repository);
    const renders = jest.spyOn(repository, 'inOneSnapshot').mockImplementationOnce(async (read) => {
      await held;
      return inOneSnapshot(read);
    });
    const first = get().then((res) => res);
    await waitFor(() => renders.mock.calls.length === 1, { what: 'the first render' });
    // Another content needs another render: over the cap of one, it waits.
    await change();
    const second = get().then((res) => res);
    await waitFor(() => waitingWork(t.app.get(WorkLimits), 'list_render') === 1, {
      what: 'the second waiting',
    });
    // And one more of the same key, while one of it waits already: refused.
    await change();
    const refused = await get().expect(503);
    expectProblem(refused, {
      status: 503,
      title: 'Service Unavailable',
      detail: 'The service is busy; retry after the seconds in Retry-After',
    });
    expect(refused.headers['retry-after']).toMatch(/^[1-4]$/);
    expect(renders).toHaveBeenCalledTimes(1);
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    await get().expect(200);
  });

  describe('a list longer than a kept body', () => {
    let streamed: request.Response;

    beforeAll(async () => {
      await t.dataSource.query(
        `INSERT INTO links (id) SELECT 'bulk-' || lpad(g::text, 7, '0') FROM generate_series(1, $1) g`,
        [STREAMED_LINKS],
      );
      streamed = await get().expect(200);
    });

    it('is streamed whole, with the ETag of its rows', () => {
      expect(streamed.headers['transfer-encoding']).toBe('chunked');
      expect(streamed.headers['content-length']).toBeUndefined();
      expect(streamed.headers.etag).toMatch(/^W\/"links-v1-\d+--?\d+"$/);
      expect(streamed.body.meta).toEqual({ total: STREAMED_LINKS + 10 });
      expect(streamed.body.data).toHaveLength(STREAMED_LINKS + 10);
    });

    it('answers a 304 for its ETag without reading its rows, and a 200 once they change', async () => {
      const renders = jest.spyOn(repository, 'inOneSnapshot');
      await get({ 'If-None-Match': streamed.headers.etag }).expect(304);
      expect(renders).not.toHaveBeenCalled();
      await change();
      const changed = await get({ 'If-None-Match': streamed.headers.etag }).expect(200);
      expect(changed.headers.etag).not.toBe(streamed.headers.etag);
    });

    it('sends the same bytes compressed', async () => {
      for (const encoding of ['gzip', 'br']) {
        const res = await get({ 'Accept-Encoding': encoding }).expect(200);
        expect(res.headers['content-encoding']).toBe(encoding);
        expect(res.body.meta).toEqual({ total: STREAMED_LINKS + 10 });
      }
    });
  });
});
