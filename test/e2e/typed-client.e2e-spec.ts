import { AddressInfo } from 'node:net';
import { ApiError, Client, createApiClient } from '../../clients/typescript/src/client';
import { allClients, clientPages } from '../../clients/typescript/src/iterate-clients';
import { retryAfterMs } from '../../clients/typescript/src/retrying-fetch';
import { createTestApp, TestApp } from '../support/create-app';
import { FaultProxy } from '../support/fault-proxy';
import { insertManyClients } from '../support/fixtures';

const API_KEY = 'test-key-primary';

describe('typed client (clients/typescript) against a running instance', () => {
  let t: TestApp;
  let baseUrl: string;
  const api = () => createApiClient({ baseUrl, apiKey: API_KEY, retry: { baseDelayMs: 50 } });

  beforeAll(async () => {
    t = await createTestApp();
    await insertManyClients(t.dataSource, 300);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const idsInDatabase = async (where: string): Promise<string[]> =>
    (
      await t.dataSource.query(
        `SELECT id FROM clients WHERE ${where} ORDER BY created_at, id COLLATE "C"`,
      )
    ).map((row: { id: string }) => row.id);

  it('gets typed bodies, and problem details on an error', async () => {
    const link = await api().GET('/api/data/links/{id}', { params: { path: { id: 'link-3' } } });
    expect(link.data).toEqual({
      id: 'link-3',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
    const missing = await api().GET('/api/data/clients/{id}', {
      params: { path: { id: 'nope' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ status: 404, detail: 'No client has this id' });
  });

  it('walks every client matching a filter with cursors, each once, in order', async () => {
    const pages = [];
    for await (const page of clientPages(api(), { status: 'new', isDeleted: false }, { limit: 7 }))
      pages.push(page);
    const ids = pages.flatMap((page) => page.clients.map((client: Client) => client.id));
    expect(ids).toEqual(await idsInDatabase(`status = 'new' AND NOT is_deleted`));
    expect(pages.length).toBe(Math.ceil(ids.length / 7));
    expect(pages.at(-1)?.nextCursor).toBeNull();
  });

  it('walks a filter that matches nothing in one request', async () => {
    const clients = [];
    for await (const client of allClients(api(), { linkId: 'no-such-link' })) clients.push(client);
    expect(clients).toEqual([]);
  });

  it('throws the problem details of a 4xx, without retrying it', async () => {
    const proxy = new FaultProxy(baseUrl, () => undefined);
    const proxyUrl = await proxy.start();
    try {
      const wrongKey = createApiClient({ baseUrl: proxyUrl, apiKey: 'wrong' });
      const walk = allClients(wrongKey, {}).next();
      await expect(walk).rejects.toThrow(ApiError);
      await expect(walk).rejects.toMatchObject({ status: 401 });
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.stop();
    }
  });

  it('retries 503, 429 and a cut connection, then gives up with the last answer', async () => {
    const faults = [503, 'reset', 429, 503] as const;
    const proxy = new FaultProxy(baseUrl, (n) => faults[n - 1] ?? 503, 0);
    const proxyUrl = await proxy.start();
    const retries: (number | undefined)[] = [];
    try {
      const flaky = createApiClient({
        baseUrl: proxyUrl,
        apiKey: API_KEY,
        retry: { maxAttempts: 5, baseDelayMs: 10, onRetry: (e) => retries.push(e.status) },
      });
      await expect(allClients(flaky, {}).next()).rejects.toMatchObject({ status: 503 });
      expect(proxy.requests).toHaveLength(5);
      expect(retries).toEqual([503, undefined, 429, 503]);
    } finally {
      await proxy.stop();
    }
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});
