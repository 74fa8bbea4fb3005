import { AddressInfo } from 'node:net';
import { changePages, followChanges } from '../../clients/typescript/src/change-feed';
import { ApiError, Client, createApiClient } from '../../clients/typescript/src/client';
import { allClients, clientPages } from '../../clients/typescript/src/iterate-clients';
import { retryAfterMs, sleep } from '../../clients/typescript/src/retrying-fetch';
import { createTestApp, TestApp } from '../support/create-app';
import { FaultProxy } from '../support/fault-proxy';
import { insertManyClients } from '../support/fixtures';
import { waitingPolls } from '../support/long-polls';

// The client's pauses, as it asks for them: what it controls, however long the machine takes.
jest.mock('../../clients/typescript/src/retrying-fetch', () => {
  const actual = jest.requireActual('../../clients/typescript/src/retrying-fetch');
  return { ...actual, sleep: jest.fn(actual.sleep) };
});
const pauses = () => jest.mocked(sleep).mock.calls.map(([ms]) => ms);

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

  it("gives a walk's total from its first page, before its first client, with no request of its own", async () => {
    const requests: string[] = [];
    const counted = createApiClient({
      baseUrl,
      apiKey: API_KEY,
      fetch: (request) => (requests.push(request.url), fetch(request)),
    });
    const walk = allClients(counted, { status: 'connected' }, { limit: 50 });
    expect(walk.total).toBeUndefined();
    const totals: (number | undefined)[] = [];
    let walked = 0;
    for await (const client of walk) {
      void client;
      totals.push(walk.total);
      walked++;
    }
    const expected = (await idsInDatabase(`status = 'connected'`)).length;
    expect(walked).toBe(expected);
    expect(new Set(totals)).toEqual(new Set([expected]));
    // One request per page, as a walk without a total makes.
    expect(requests).toHaveLength(Math.ceil(expected / 50));
    // From a cursor, pages carry no total.
    const { value: first } = await clientPages(
      api(),
      { status: 'connected' },
      { limit: 50 },
    ).next();
    const resumed = allClients(api(), { status: 'connected' }, { cursor: first?.nextCursor });
    await resumed.next();
    expect(resumed.total).toBeUndefined();
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

  describe('change feeds', () => {
    const feedIds = async (table: string, where = 'true'): Promise<string[]> =>
      (
        await t.dataSource.query(
          `SELECT id FROM ${table} WHERE ${where} ORDER BY updated_at, id COLLATE "C"`,
        )
      ).map((row: { id: string }) => row.id);
    /** Requests sent through the client (not those aborted before), with when each was sent. */
    const sent: { url: string; at: number }[] = [];
    const logged = () =>
      createApiClient({
        baseUrl,
        apiKey: API_KEY,
        fetch: (request) => {
          if (!request.signal.aborted) sent.push({ url: request.url, at: Date.now() });
          return fetch(request);
        },
      });
    const caughtUp = async (feed: 'clients' | 'links', linkId?: string) => {
      let cursor = '';
      for await (const page of changePages(api(), feed, { ...(linkId && { linkId }) }))
        cursor = page.nextCursor;
      return cursor;
    };

    it('copies a whole feed by pages, then resumes from a stored cursor with only what changed', async () => {
      const pages = [];
      for await (const page of changePages(api(), 'clients', { limit: 40 })) pages.push(page);
      expect(pages.flatMap((page) => page.rows.map((row) => row.id))).toEqual(
        await feedIds('clients'),
      );
      expect(pages.map((page) => page.hasMore)).toEqual([
        ...Array<boolean>(pages.length - 1).fill(true),
        false,
      ]);
      const stored = pages.at(-1)!.nextCursor;

      await t.dataSource.query(`UPDATE clients SET is_deleted = true WHERE id = 'client-00042'`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const resumed = [];
      for await (const page of changePages(api(), 'clients', { cursor: stored }))
        resumed.push(page);
      expect(resumed).toHaveLength(1);
      expect(resumed[0].rows).toMatchObject([{ id: 'client-00042', isDeleted: true }]);
      expect(resumed[0].hasMore).toBe(false);
    });

    it('walks the links feed, and the client feed of one link', async () => {
      const links = [];
      for await (const page of changePages(api(), 'links', { limit: 6 })) links.push(...page.rows);
      expect(links.map((link) => link.id)).toEqual(await feedIds('links'));
      const ofLink = [];
      for await (const page of changePages(api(), 'clients', { linkId: 'link-5', limit: 4 }))
        ofLink.push(...page.rows);
      expect(ofLink.map((client) => client.id)).toEqual(
        await feedIds('clients', `link_id = 'link-5'`),
      );
    });

    it('long-polls once caught up: each poll waits on the server, the next follows at once', async () => {
      const cursor = await caughtUp('links');
      sent.length = 0;
      jest.mocked(sleep).mockClear();
      const pages = [];
      const options = { cursor, waitSeconds: 1, maxIdlePolls: 3 };
      for await (const page of followChanges(logged(), 'links', options)) pages.push(page);
      expect(pages.map((page) => page.rows.length)).toEqual([0, 0, 0]);
      expect(pages.every((page) => page.nextCursor === cursor)).toBe(true);
      // The first poll answers at once; then two long polls, each held 1 s by the server.
      expect(sent.map((request) => new URL(request.url).searchParams.get('wait'))).toEqual([
        null,
        '1',
        '1',
      ]);
      expect(pauses()).toEqual([]);
      expect(sent[2].at - sent[1].at).toBeGreaterThanOrEqual(1000);
    });

    it('pauses before the next poll when an empty long poll comes back early (a pod shutting down)', async () => {
      const cursor = await caughtUp('links');
      sent.length = 0;
      jest.mocked(sleep).mockClear();
      // Every long poll is answered at once, as a draining pod answers it.
      const draining = createApiClient({
        baseUrl,
        apiKey: API_KEY,
        fetch: (request) => {
          sent.push({ url: request.url, at: Date.now() });
          const url = new URL(request.url);
          url.searchParams.delete('wait');
          return fetch(new Request(url, request));
        },
      });
      const options = { cursor, minDelayMs: 100, maxDelayMs: 150, maxIdlePolls: 4 };
      for await (const page of followChanges(draining, 'links', options)) void page;
      // The first answer (no wait asked) is followed at once by a long poll; the early ones
      // each after a pause (doubled from 100 ms, capped at 150), which the clock honours.
      expect(sent.map((request) => new URL(request.url).searchParams.get('wait'))).toEqual([
        null,
        '25',
        '25',
        '25',
      ]);
      expect(pauses()).toEqual([150, 150]);
      const waits = sent.slice(1).map((request, i) => request.at - sent[i].at);
      [150, 150].forEach((ms, i) => expect(waits[i + 1]).toBeGreaterThanOrEqual(ms - 2));
    });

    it('with waitSeconds 0, short-polls, backing off while idle, until maxIdlePolls', async () => {
      const cursor = await caughtUp('links');
      sent.length = 0;
      jest.mocked(sleep).mockClear();
      const pages = [];
      const options = { cursor, waitSeconds: 0, minDelayMs: 40, maxDelayMs: 100, maxIdlePolls: 5 };
      for await (const page of followChanges(logged(), 'links', options)) pages.push(page);
      expect(pages.map((page) => page.rows.length)).toEqual([0, 0, 0, 0, 0]);
      expect(pages.every((page) => page.nextCursor === cursor)).toBe(true);
      // Pauses of 40, 80, 100 and 100 ms between the five polls: doubling, up to the cap
      // (uncapped, the last would be 320 ms); none asks the server to wait.
      expect(pauses()).toEqual([40, 80, 100, 100]);
      expect(sent.map((request) => new URL(request.url).searchParams.get('wait'))).toEqual(
        Array(5).fill(null),
      );
      const waits = sent.slice(1).map((request, i) => request.at - sent[i].at);
      [40, 80, 100, 100].forEach((ms, i) => expect(waits[i]).toBeGreaterThanOrEqual(ms - 2));
    });

    it('follows a change made while long polling at once, and stops when aborted', async () => {
      const cursor = await caughtUp('clients', 'link-7');
      const controller = new AbortController();
      const seen: string[] = [];
      sent.length = 0;
      const following = (async () => {
        const options = { cursor, linkId: 'link-7', signal: controller.signal };
        for await (const page of followChanges(logged(), 'clients', options)) {
          seen.push(...page.rows.map((row) => row.id));
          if (seen.length > 0) controller.abort(new Error('enough'));
        }
      })();
      await waitingPolls(t, 1);
      await t.dataSource.query(`UPDATE clients SET status = 'new' WHERE id = 'client-00006'`);
      await expect(following).rejects.toThrow('enough');
      expect(seen).toEqual(['client-00006']);
      // The long poll waiting (25 s) brought the change: no other request was needed.
      expect(sent.map((request) => new URL(request.url).searchParams.get('wait'))).toEqual([
        null,
        '25',
      ]);
    });

    it('throws a refused cursor as a 400 problem, without retrying it', async () => {
      sent.length = 0;
      const other = await caughtUp('links');
      await expect(
        changePages(logged(), 'clients', { cursor: other }).next(),
      ).rejects.toMatchObject({
        status: 400,
        problem: { errors: [expect.objectContaining({ name: 'cursor' })] },
      });
      expect(sent).toHaveLength(1);
    });
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
