import { IncomingMessage, Server, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import type { Pool } from 'pg';
import {
  ChangesRepository,
  SAFE_POINT_QUERY,
  TAIL_QUERY,
} from '../../src/changes/changes.repository';
import { ServiceBusyException } from '../../src/errors/service-busy.exception';
import { ANSWERS_PER_TURN } from '../../src/changes/waiting-polls';
import { DatabaseReader } from '../../src/database/database-reader';
import { ShutdownState } from '../../src/health/shutdown-state';
import { TOO_MANY_WAITING_FOR_KEY } from '../../src/errors/error-texts';
import { TestApp } from '../support/create-app';
import {
  Answer,
  caughtUp,
  emptyPage,
  feedPath,
  KEY,
  metric,
  pause,
  startApp,
  waitingPolls,
  watcherPastEveryChange,
} from '../support/long-polls';
import { countLoopTurns, perTurn } from '../support/loop-turns';
import { testPool } from '../support/pg-client';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const BUSY = 'The service is busy; retry after the seconds in Retry-After';
// The change watcher's own statements: every other one is a request's.
const WATCHING = [SAFE_POINT_QUERY, TAIL_QUERY];
const readsOf = (queries: jest.SpyInstance) =>
  queries.mock.calls.filter(([text]) => !WATCHING.includes(text as string));

/** How many responses `server` ended in each turn of the event loop while `run` ran. */
async function endsPerTurn(server: Server, run: () => Promise<void>): Promise<number[]> {
  const loop = countLoopTurns();
  const endedIn: number[] = [];
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => (endedIn.push(loop.turn()), end(...args))) as typeof res.end;
  };
  // First among the listeners: before the app sees the request.
  server.prependListener('request', onRequest);
  try {
    await run();
  } finally {
    loop.stop();
    server.removeListener('request', onRequest);
  }
  return perTurn(endedIn);
}

// docs/api.md "Change feeds": `wait` holds a caught-up poll until a change is served.
describe('Long polling of the change feeds', () => {
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;
  let writers: Pool;
  let inserted = 0;
  const insertClient = (linkId = 'link-a') =>
    writers.query(`INSERT INTO clients (id, link_id, status) VALUES ($1, $2, 'new')`, [
      `client-${++inserted}`,
      linkId,
    ]);

  beforeAll(async () => {
    ({ t, get } = await startApp());
    writers = testPool({ connectionString: process.env.DATABASE_URL, max: 2 });
    await writers.query(`INSERT INTO links (id) VALUES ('link-a'), ('link-b')`);
    await insertClient();
  });
  afterAll(async () => {
    await writers.end();
    await t.close();
  });

  describe('the wait parameter', () => {
    it.each([
      ['wait=0', 'must be an integer from 1 to 25'],
      ['wait=26', 'must be an integer from 1 to 25'],
      ['wait=1.5', 'must be an integer from 1 to 25'],
      ['wait=%2B1', 'must be an integer from 1 to 25'],
      ['wait=1e1', 'must be an integer from 1 to 25'],
      ['wait=%201', 'must be an integer from 1 to 25'],
      ['wait=', 'must be an integer from 1 to 25'],
      ['wait=1&wait=2', 'must be given only once'],
    ])('?%s is a 400 naming wait', async (query, reason) => {
      for (const feed of ['links', 'clients']) {
        const res = await get(`/api/data/changes/${feed}?${query}`);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.body.errors).toEqual([{ name: 'wait', reason }]);
      }
    });

    it('takes decimal digits, as limit does (01 is 1), and answers at once when rows are ready', async () => {
      // Ready: the row is behind the safe point (its write is over 100 ms old).
      await waitFor(async () => (await get('/api/data/changes/clients')).body.data.length === 1, {
        what: 'client-1 in the feed',
      });
      const wakeUps = await metric(t, 'change_feed_wakeups_total');
      for (const wait of ['1', '01', '25']) {
        const res = await get(`/api/data/changes/clients?wait=${wait}`);
        expect(res.status).toBe(200);
        expect(res.body.data.map((row) => row.id)).toEqual(['client-1']);
      }
      // Answered by the first read: none of them waited.
      expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps);
    });
  });

  it('answers a waiting poll with the change, woken once by the watcher', async () => {
    for (let round = 0; round < 3; round++) {
      const cursor = await caughtUp(get, 'clients');
      const wakeUps = await metric(t, 'change_feed_wakeups_total');
      const answer = get(feedPath('clients', cursor, 'wait=20'));
      await waitingPolls(t, 1);
      await pause(300);
      await insertClient();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body.data.map((row) => row.id)).toEqual([`client-${inserted}`]);
      expect(res.body.meta.hasMore).toBe(false);
      // Told of its change, not its deadline (20 s): one read, for the change.
      expect(res.ms).toBeLessThan(15_000);
      expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps + 1);
      expect(await metric(t, 'change_feed_wakeups_total', { cause: 'change' })).toBeGreaterThan(0);
    }
  });

  it('wakes a poll filtered on a link only for a change of that link', async () => {
    const cursor = await caughtUp(get, 'clients', '&linkId=link-b');
    const answer = get(feedPath('clients', cursor, 'wait=20&linkId=link-b'));
    await waitingPolls(t, 1);
    const wakeUps = await metric(t, 'change_feed_wakeups_total');
    const queries = jest.spyOn(t.app.get(DatabaseReader), 'query');
    // Changes of another link, seen by the watcher: not this poll's.
    for (let n = 0; n < 3; n++) await insertClient('link-a');
    await watcherPastEveryChange(t);
    expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps);
    expect(readsOf(queries)).toEqual([]);
    await insertClient('link-b');
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual([`client-${inserted}`]);
    expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps + 1);
    expect(readsOf(queries)).toHaveLength(1);
    queries.mockRestore();
  });

  it('wakes no one for a rolled-back write: the poll ends at its deadline with its own cursor', async () => {
    const cursor = await caughtUp(get, 'clients');
    const wakeUps = await metric(t, 'change_feed_wakeups_total');
    const answer = get(feedPath('clients', cursor, 'wait=2'));
    await waitingPolls(t, 1);
    const writer = await writers.connect();
    await writer.query('BEGIN');
    await writer.query(
      `INSERT INTO clients (id, link_id, status) VALUES ('gone', 'link-a', 'new')`,
    );
    await writer.query('ROLLBACK');
    writer.release();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toEqual(emptyPage(cursor));
    // Its deadline is the behaviour: not before it.
    expect(res.ms).toBeGreaterThanOrEqual(1990);
    expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps);
  });

  it('wakes a links poll for a link change, not for a client change', async () => {
    const cursor = await caughtUp(get, 'links');
    const answer = get(feedPath('links', cursor, 'wait=10'));
    await waitingPolls(t, 1);
    const wakeUps = await metric(t, 'change_feed_wakeups_total');
    await insertClient();
    await watcherPastEveryChange(t);
    expect(await metric(t, 'change_feed_wakeups_total')).toBe(wakeUps);
    await writers.query(`UPDATE links SET created_at = created_at WHERE id = 'link-b'`);
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual(['link-b']);
  });

  it('keeps waiting while an older writer holds the feed back, and answers once it commits', async () => {
    const cursor = await caughtUp(get, 'clients');
    const older = await writers.connect();
    await older.query('BEGIN');
    await older.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
    const answer = get(feedPath('clients', cursor, 'wait=20'));
    await waitingPolls(t, 1);
    // Committed, but behind the older writer's start: not served yet.
    await writers.query(
      `INSERT INTO clients (id, link_id, status) VALUES ('held', 'link-a', 'new')`,
    );
    await pause(1500);
    expect(await metric(t, 'change_feed_waiting_polls')).toBe(1);
    expect(await metric(t, 'change_feed_safe_point_lag_seconds')).toBeGreaterThan(1);
    await older.query('COMMIT');
    older.release();
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual(['held']);
  });

  it('holds 50 waiting polls, over the per-key cap, that read nothing until their change, then share one read', async () => {
    const cursor = await caughtUp(get, 'clients');
    // One key, past MAX_REQUESTS_PER_KEY (32): long polls count apart.
    const answers = Array.from({ length: 50 }, () => get(feedPath('clients', cursor, 'wait=20')));
    await waitingPolls(t, 50);
    const queries = jest.spyOn(t.app.get(DatabaseReader), 'query');
    await pause(1000);
    // Waiting, they read nothing: the watcher alone reads, the same for one poll or fifty.
    expect(readsOf(queries)).toEqual([]);
    expect(queries.mock.calls.length).toBeLessThanOrEqual(2 * 15);
    await get('/api/data/links').then((res) => expect(res.status).toBe(200));
    queries.mockClear();
    await insertClient();
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(200);
      expect(res.body.data.map((row) => row.id)).toEqual([`client-${inserted}`]);
    }
    // Woken together, at one position: one page read for the fifty.
    expect(readsOf(queries)).toHaveLength(1);
    queries.mockRestore();
  });

  it('answers the polls one change wakes a batch per turn of the event loop', async () => {
    const cursor = await caughtUp(get, 'clients');
    const polls = 3 * ANSWERS_PER_TURN;
    const ends = await endsPerTurn(t.app.getHttpServer() as Server, async () => {
      const answers = Array.from({ length: polls }, () =>
        get(feedPath('clients', cursor, 'wait=20')),
      );
      await waitingPolls(t, polls);
      await insertClient();
      for (const res of await Promise.all(answers)) expect(res.body.data).toHaveLength(1);
    });
    expect(ends.reduce((sum, n) => sum + n, 0)).toBe(polls);
    expect(Math.max(...ends)).toBeLessThanOrEqual(ANSWERS_PER_TURN);
  });

  it.each([
    ['rows', 200],
    ['a failure', 503],
  ])(
    'answers the polls that shared a first read with %s a batch per turn too',
    async (_, status) => {
      const cursor = await caughtUp(get, 'clients');
      await insertClient();
      await waitFor(async () => (await get(feedPath('clients', cursor, ''))).body.data.length > 0, {
        what: 'the row before the safe point',
      });
      const polls = 3 * ANSWERS_PER_TURN;
      // The first poll's read held until every other has asked: the others share at most two reads.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const repository = t.app.get(ChangesRepository) as unknown as { readPage: () => unknown };
      const readPage = repository.readPage.bind(repository);
      let reads = 0;
      const shared = jest.spyOn(repository, 'readPage').mockImplementation(async (...args) => {
        if (++reads === 1) await held;
        else if (status === 503) throw new ServiceBusyException('poll_reads');
        return readPage(...(args as []));
      });
      const asked = jest.spyOn(t.app.get(ChangesRepository), 'page');
      try {
        const ends = await endsPerTurn(t.app.getHttpServer() as Server, async () => {
          const identity = { ...KEY, 'Accept-Encoding': 'identity' };
          const answers = Array.from({ length: polls }, () =>
            get(feedPath('clients', cursor, 'wait=20'), identity),
          );
          await waitFor(() => asked.mock.calls.length === polls, { what: `${polls} reads asked` });
          release();
          const statuses = (await Promise.all(answers)).map((res) => res.status);
          expect(statuses.slice(1)).toEqual(Array(polls - 1).fill(status));
        });
        expect(ends.reduce((sum, n) => sum + n, 0)).toBe(polls);
        expect(Math.max(...ends)).toBeLessThanOrEqual(ANSWERS_PER_TURN);
      } finally {
        release();
        shared.mockRestore();
        asked.mockRestore();
      }
    },
  );

  it('sends polls woken together one body, tagged and compressed once for all', async () => {
    const cursor = await caughtUp(get, 'clients');
    const gzip = { ...KEY, 'Accept-Encoding': 'gzip' };
    const answers = Array.from({ length: 20 }, () =>
      get(feedPath('clients', cursor, 'wait=20'), gzip),
    );
    await waitingPolls(t, 20);
    // Whole (zlib.gzip) or as a stream (`compression`'s zlib.createGzip, read-only: wrapped).
    const wholes = jest.spyOn(zlib, 'gzip');
    const { createGzip } = zlib;
    let streams = 0;
    Object.defineProperty(zlib, 'createGzip', {
      configurable: true,
      value: (...args: Parameters<typeof createGzip>) => (streams++, createGzip(...args)),
    });
    // Rows enough for a body past the size compressed (1 KiB), in one commit.
    await writers.query(
      `INSERT INTO clients (id, link_id, status)
       SELECT 'batch-' || g, 'link-a', 'new' FROM generate_series(1, 20) AS g`,
    );
    const received = await Promise.all(answers);
    for (const res of received) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(res.body).toEqual(received[0].body);
      expect(res.headers.get('etag')).toBe(received[0].headers.get('etag'));
    }
    expect(received[0].body.data).toHaveLength(20);
    const made = { wholes: wholes.mock.calls.length, streams };
    Object.defineProperty(zlib, 'createGzip', { configurable: true, value: createGzip });
    wholes.mockRestore();
    expect(made).toEqual({ wholes: 1, streams: 0 });
  });

  it('answers every waiting poll at once on SIGTERM, with its own cursor', async () => {
    const cursor = await caughtUp(get, 'clients');
    const answers = [1, 2, 3].map(() => get(feedPath('clients', cursor, 'wait=20&limit=5')));
    await waitingPolls(t, 3);
    t.app.get(ShutdownState).begin();
    // Long before their deadline (20 s): at the signal.
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(emptyPage(cursor, 5));
      expect(res.ms).toBeLessThan(10_000);
    }
    // While draining, a poll with wait is answered at once.
    const late = await get(feedPath('clients', cursor, 'wait=20'));
    expect(late.body).toEqual(emptyPage(cursor));
    expect(late.ms).toBeLessThan(10_000);
  });
});

describe('Long polling: what waiting polls cost, by the links they follow', () => {
  const KEYS = ['Bearer test-key-primary', 'Bearer test-key-rotated'];
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;
  let answers: Promise<Answer>[] = [];

  beforeAll(async () => {
    ({ t, get } = await startApp());
    await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-a'), ('link-b')`);
  });
  afterAll(() => t.close());

  /** Statements run while 100 polls wait and ten changes of link-a are made and seen. */
  async function statementsWhileWaiting(linkOf: (n: number) => string) {
    const filters = Array.from({ length: 100 }, (_, n) => `&linkId=${linkOf(n)}`);
    // One after the other: together they would pass the key's cap on requests in flight.
    const cursors: string[] = [];
    for (const filter of filters) {
      const res = await get(`/api/data/changes/clients?limit=1000${filter}`);
      cursors.push(res.body.meta.nextCursor);
    }
    answers = filters.map((filter, n) =>
      get(feedPath('clients', cursors[n], `wait=25${filter}`), { Authorization: KEYS[n % 2] }),
    );
    await waitingPolls(t, 100);
    const queries = jest.spyOn(t.app.get(DatabaseReader), 'query');
    for (let change = 0; change < 10; change++) {
      await t.dataSource.query(
        `INSERT INTO clients (id, link_id, status) VALUES ($1, 'link-a', 'new')`,
        [`client-${linkOf(0)}-${change}`],
      );
      await watcherPastEveryChange(t);
    }
    const statements = queries.mock.calls;
    queries.mockRestore();
    return statements;
  }

  it('costs the same for polls over 100 links as on one, for changes none of them follow: none reads', async () => {
    const onOneLink = await statementsWhileWaiting(() => 'link-b');
    expect(onOneLink.filter(([text]) => !WATCHING.includes(text as string))).toEqual([]);
    // The polls on link-b are answered by a change of theirs.
    await t.dataSource.query(
      `INSERT INTO clients (id, link_id, status) VALUES ('b', 'link-b', 'new')`,
    );
    for (const res of await Promise.all(answers)) expect(res.body.data).toHaveLength(1);

    const overManyLinks = await statementsWhileWaiting((n) => `link-many-${n}`);
    expect(overManyLinks.filter(([text]) => !WATCHING.includes(text as string))).toEqual([]);
    expect(overManyLinks.length).toBeLessThanOrEqual(1.3 * onOneLink.length + 4);
  });
});

describe('Long polling beside another tenant', () => {
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;
  const OTHER = { Authorization: 'Bearer test-key-rotated' };

  beforeAll(async () => {
    // Fewer slots for ordinary requests than there are polls: polls must not take them.
    ({ t, get } = await startApp({ env: { MAX_REQUESTS_IN_FLIGHT: '4' } }));
    await t.dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || g FROM generate_series(1, 20) g`,
    );
  });
  afterAll(() => t.close());

  it("never sheds another key's requests, however many of one key's polls wait, wake and read", async () => {
    // Each link's cursor, one request at a time: ordinary requests, under the cap of 4.
    const cursors: string[] = [];
    for (let link = 1; link <= 20; link++) {
      const res = await get(`/api/data/changes/clients?limit=1&linkId=link-${link}`);
      cursors.push(res.body.meta.nextCursor);
    }
    const polls = Array.from({ length: 60 }, (_, n) =>
      get(feedPath('clients', cursors[n % 20], `wait=25&linkId=link-${1 + (n % 20)}`)),
    );
    await waitingPolls(t, 60);
    const statuses: number[] = [];
    for (let change = 0; change < 20; change++) {
      // A change wakes the polls of its link; the other key reads meanwhile.
      await t.dataSource.query(`INSERT INTO clients (id, link_id, status) VALUES ($1, $2, 'new')`, [
        `tenant-${change}`,
        `link-${1 + change}`,
      ]);
      const reads = await Promise.all([1, 2, 3].map(() => get('/api/data/links', OTHER)));
      statuses.push(...reads.map((res) => res.status));
    }
    for (const res of await Promise.all(polls)) expect(res.status).toBe(200);
    expect(statuses).toEqual(Array(60).fill(200));
    expect(await metric(t, 'http_requests_shed_total', { reason: 'requests_in_flight' })).toBe(0);
  });
});

describe('Long polling past the cap of waiting polls', () => {
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;

  beforeAll(async () => {
    ({ t, get } = await startApp({
      env: { MAX_WAITING_POLLS: '2', MAX_REQUESTS_IN_FLIGHT: '2', MAX_REQUESTS_PER_KEY: '1' },
    }));
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After past MAX_WAITING_POLLS; the polls take no request slot', async () => {
    const cursor = await caughtUp(get, 'links');
    const two = [1, 2].map(() => get(feedPath('links', cursor, 'wait=3')));
    await waitingPolls(t, 2);
    const third = await get(feedPath('links', cursor, 'wait=3'));
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toMatch(/^[1-4]$/);
    expect(third.headers.get('connection')).not.toBe('close');
    expect(third.body.detail).toBe(BUSY);
    expect(await metric(t, 'http_requests_shed_total', { reason: 'waiting_polls' })).toBe(1);
    // MAX_REQUESTS_IN_FLIGHT 2 and MAX_REQUESTS_PER_KEY 1 are not taken by the two waiting.
    expect((await get('/api/data/links')).status).toBe(200);
    expect((await get(feedPath('links', cursor, ''))).status).toBe(200);
    for (const res of await Promise.all(two)) expect(res.body).toEqual(emptyPage(cursor));
  });
});

describe('Long polling: the waiting polls of one key', () => {
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;

  beforeAll(async () => {
    ({ t, get } = await startApp({ env: { MAX_WAITING_POLLS_PER_KEY: '1' } }));
  });
  afterAll(() => t.close());

  it('answers 429 past MAX_WAITING_POLLS_PER_KEY, while another key still waits', async () => {
    const cursor = await caughtUp(get, 'links');
    const first = get(feedPath('links', cursor, 'wait=2'));
    await waitingPolls(t, 1);
    const second = await get(feedPath('links', cursor, 'wait=2'));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^[1-4]$/);
    expect(second.body.detail).toBe(TOO_MANY_WAITING_FOR_KEY);
    expect(await metric(t, 'http_requests_shed_total', { reason: 'key_waiting_polls' })).toBe(1);
    const other = get(feedPath('links', cursor, 'wait=2'), {
      Authorization: 'Bearer test-key-rotated',
    });
    await waitingPolls(t, 2);
    for (const res of await Promise.all([first, other]))
      expect(res.body).toEqual(emptyPage(cursor));
    // Its slot is free again once its poll has ended.
    expect((await get(feedPath('links', cursor, 'wait=1'))).body).toEqual(emptyPage(cursor));
  });
});

describe('Long polling when the database stops answering the watcher', () => {
  const proxy = new TcpProxy('127.0.0.1', Number(new URL(process.env.DATABASE_URL!).port || 5432));
  let t: TestApp;
  let get: (path: string, headers?: Record<string, string>) => Promise<Answer>;

  beforeAll(async () => {
    await proxy.up();
    const url = new URL(process.env.DATABASE_URL!);
    url.host = `127.0.0.1:${proxy.port}`;
    ({ t, get } = await startApp({
      env: { DATABASE_TIMEOUT_MS: '1000' },
      appDatabaseUrl: url.toString(),
    }));
    await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-a')`);
  });
  afterAll(async () => {
    await t.close();
    await proxy.down();
  });

  it('says so within seconds of a silent connection, and wakes waiting polls again once it answers', async () => {
    expect(await metric(t, 'change_feed_watcher_up')).toBe(1);
    const cursor = await caughtUp(get, 'links');
    // Silent, not closed: a network that drops the packets of open connections.
    proxy.silent = true;
    // Within seconds (docs/operations.md); the bounds hold on a loaded machine.
    await waitFor(async () => (await metric(t, 'change_feed_watcher_up')) === 0, {
      what: 'the watcher down',
      timeoutMs: 30_000,
    });
    proxy.silent = false;
    await waitFor(async () => (await metric(t, 'change_feed_watcher_up')) === 1, {
      what: 'the watcher back',
      timeoutMs: 30_000,
    });
    const answer = get(feedPath('links', cursor, 'wait=20'));
    await waitingPolls(t, 1);
    await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual(['link-a']);
    expect(res.ms).toBeLessThan(15_000);
  }, 90_000);
});
