import { Pool } from 'pg';
import { ChangeNotifications } from '../../src/changes/change-notifications';
import { DatabasePools } from '../../src/database/pools';
import { DatabaseReader } from '../../src/database/database-reader';
import { ShutdownState } from '../../src/health/shutdown-state';
import { TOO_MANY_WAITING_FOR_KEY } from '../../src/errors/error-texts';
import { TestApp } from '../support/create-app';
import {
  Answer,
  caughtUp,
  emptyPage,
  feedPath,
  metric,
  pause,
  pollReads,
  pollReadsSince,
  startApp,
  waitingPolls,
} from '../support/long-polls';
import { freePort } from '../../src/dev/free-port';
import { waitFor } from '../support/wait-for';

const BUSY = 'The service is busy; retry after the seconds in Retry-After';

// docs/api.md "Change feeds": `wait` holds a caught-up poll until a change is served.
describe('Long polling of the change feeds', () => {
  let t: TestApp;
  let get: (path: string) => Promise<Answer>;
  let writers: Pool;
  let inserted = 0;
  const insertClient = (linkId = 'link-a') =>
    writers.query(`INSERT INTO clients (id, link_id, status) VALUES ($1, $2, 'new')`, [
      `client-${++inserted}`,
      linkId,
    ]);

  beforeAll(async () => {
    ({ t, get } = await startApp());
    writers = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
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
      const before = await pollReads(t);
      for (const wait of ['1', '01', '25']) {
        const res = await get(`/api/data/changes/clients?wait=${wait}`);
        expect(res.status).toBe(200);
        expect(res.body.data.map((row) => row.id)).toEqual(['client-1']);
      }
      // None waited: a waiting poll reads again at least once.
      expect(await pollReadsSince(t, before)).toEqual({ notification: 0, interval: 0 });
    });
  });

  // When a notified read happens (the safe point's margin after the notification) is
  // poll-wake-ups.spec's; here, that the commit's notification is what answers the poll.
  it('answers a waiting poll with the change, woken by its notification, in one read', async () => {
    const cursor = await caughtUp(get, 'clients');
    for (let round = 0; round < 3; round++) {
      const from = round === 0 ? cursor : await caughtUp(get, 'clients');
      const before = await pollReads(t);
      const answer = get(feedPath('clients', from, 'wait=20'));
      await waitingPolls(t, 1);
      // Past its first read, for a change committed just before it began to wait.
      await waitFor(async () => (await pollReadsSince(t, before)).interval === 1, {
        what: 'the poll to read once',
      });
      await insertClient();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(res.body.data.map((row) => row.id)).toEqual([`client-${inserted}`]);
      expect(res.body.meta.hasMore).toBe(false);
      expect(await pollReadsSince(t, before)).toEqual({ notification: 1, interval: 1 });
    }
  });

  it('wakes no one for a rolled-back write: the poll ends at its deadline with its own cursor', async () => {
    const cursor = await caughtUp(get, 'clients');
    const wakeUps = await metric(t, 'change_feed_wakeups_total', { cause: 'notification' });
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
    // Its deadline, not another's (20 s): far below, whatever the machine's load.
    expect(res.ms).toBeGreaterThanOrEqual(1990);
    expect(res.ms).toBeLessThan(10_000);
    expect(await metric(t, 'change_feed_wakeups_total', { cause: 'notification' })).toBe(wakeUps);
  });

  it('wakes a links poll for a link change, not for a client change', async () => {
    const cursor = await caughtUp(get, 'links');
    const answer = get(feedPath('links', cursor, 'wait=10'));
    await waitingPolls(t, 1);
    await insertClient();
    await pause(500);
    expect(await metric(t, 'change_feed_waiting_polls')).toBe(1);
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
    // Committed, notified, but behind the older writer's start: not served yet.
    await writers.query(
      `INSERT INTO clients (id, link_id, status) VALUES ('held', 'link-a', 'new')`,
    );
    await pause(1500);
    expect(await metric(t, 'change_feed_waiting_polls')).toBe(1);
    await older.query('COMMIT');
    older.release();
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual(['held']);
  });

  it('holds 50 waiting polls without a database connection, over the per-key cap, and wakes them all', async () => {
    const cursor = await caughtUp(get, 'clients');
    // One key, past MAX_REQUESTS_PER_KEY (32): waiting polls do not count against it. Sent in
    // two batches, each under the cap, because each poll's first read does count.
    const poll = () => get(feedPath('clients', cursor, 'wait=20'));
    const answers = Array.from({ length: 25 }, poll);
    await waitingPolls(t, 25);
    answers.push(...Array.from({ length: 25 }, poll));
    await waitingPolls(t, 50);
    // Past the first re-check (the safe point's margin after each began to wait).
    await pause(400);
    const pool = t.app.get(DatabasePools).primary!;
    expect(pool.totalCount - pool.idleCount).toBe(0);
    const busy = await t.dataSource.query(
      `SELECT state, query FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'links-clients-api'
         AND state <> 'idle' AND pid <> pg_backend_pid()`,
    );
    expect(busy).toEqual([]);
    await get('/api/data/links').then((res) => expect(res.status).toBe(200));
    const queries = jest.spyOn(t.app.get(DatabaseReader), 'query');
    await insertClient();
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(200);
      expect(res.body.data.map((row) => row.id)).toEqual([`client-${inserted}`]);
    }
    // Woken together, they shared their reads: a few statements, not two per poll.
    expect(queries.mock.calls.length).toBeLessThanOrEqual(10);
    queries.mockRestore();
  });

  it('answers every waiting poll at once on SIGTERM, with its own cursor', async () => {
    const cursor = await caughtUp(get, 'clients');
    const answers = [1, 2, 3].map(() => get(feedPath('clients', cursor, 'wait=20&limit=5')));
    await waitingPolls(t, 3);
    const before = await pollReads(t);
    t.app.get(ShutdownState).begin();
    // Ended by the shutdown, before their 20 s and without reading again.
    for (const res of await Promise.all(answers)) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(emptyPage(cursor, 5));
      expect(res.ms).toBeLessThan(10_000);
    }
    // While draining, a poll with wait is answered at once: it never waits, so never reads again.
    const late = await get(feedPath('clients', cursor, 'wait=20'));
    expect(late.body).toEqual(emptyPage(cursor));
    expect(await pollReadsSince(t, before)).toEqual({ notification: 0, interval: 0 });
  });
});

describe('Long polling past the cap of waiting polls', () => {
  let t: TestApp;
  let get: (path: string) => Promise<Answer>;

  beforeAll(async () => {
    ({ t, get } = await startApp({
      env: { MAX_WAITING_POLLS: '2', MAX_REQUESTS_IN_FLIGHT: '2', MAX_REQUESTS_PER_KEY: '1' },
    }));
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After past MAX_WAITING_POLLS; the waiting ones take no request slot', async () => {
    const cursor = await caughtUp(get, 'links');
    // One after the other: arriving together, the second would meet the key's cap of 1.
    const first = get(feedPath('links', cursor, 'wait=3'));
    await waitingPolls(t, 1);
    const two = [first, get(feedPath('links', cursor, 'wait=3'))];
    await waitingPolls(t, 2);
    // Past the second one's first read (the margin after it began to wait), which counts.
    await pause(300);
    const third = await get(feedPath('links', cursor, 'wait=3'));
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
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
    expect(second.headers.get('retry-after')).toBe('1');
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

describe('Long polling without notifications: re-checks on an interval', () => {
  let t: TestApp;
  let get: (path: string) => Promise<Answer>;

  beforeAll(async () => {
    // Nothing listens on this port: the listener never comes up.
    const closed = await freePort();
    ({ t, get } = await startApp({
      env: { DATABASE_LISTEN_URL: `postgres://postgres@127.0.0.1:${closed}/none` },
    }));
    await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-a')`);
  });
  afterAll(() => t.close());

  it('answers a change within the re-check interval while the listener is down', async () => {
    expect(await metric(t, 'change_feed_listener_up')).toBe(0);
    const cursor = await caughtUp(get, 'links');
    const answer = get(feedPath('links', cursor, 'wait=10'));
    await waitingPolls(t, 1);
    await pause(1200);
    const before = await pollReads(t);
    await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
    const res = await answer;
    expect(res.body.data.map((row) => row.id)).toEqual(['link-a']);
    // Late, by up to an interval and the margin, never wrong: at most the re-check that came
    // before the change showed (within the safe point's margin of its commit), then the next.
    const { notification, interval } = await pollReadsSince(t, before);
    expect(notification).toBe(0);
    expect(interval).toBeGreaterThanOrEqual(1);
    expect(interval).toBeLessThanOrEqual(2);
  });
});

describe('Long polling when the listener is cut', () => {
  let t: TestApp;
  let get: (path: string) => Promise<Answer>;

  beforeAll(async () => {
    ({ t, get } = await startApp());
    await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-a')`);
  });
  afterAll(() => t.close());

  const terminateListener = () =>
    t.dataSource.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'links-clients-api-listener'`,
    );

  it('reconnects, and waiting polls are answered meanwhile and after', async () => {
    expect(t.app.get(ChangeNotifications).isListening).toBe(true);
    const cursor = await caughtUp(get, 'links');
    const answer = get(feedPath('links', cursor, 'wait=10'));
    await waitingPolls(t, 1);
    await terminateListener();
    await waitFor(async () => (await metric(t, 'change_feed_listener_up')) === 0, {
      what: 'the listener down',
    });
    await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
    expect((await answer).body.data.map((row) => row.id)).toEqual(['link-a']);

    await waitFor(() => t.app.get(ChangeNotifications).isListening, { what: 'the listener back' });
    expect(await metric(t, 'change_feed_listener_up')).toBe(1);
    const next = await caughtUp(get, 'links');
    const later = get(feedPath('links', next, 'wait=10'));
    await waitingPolls(t, 1);
    await pause(1500);
    const before = await pollReads(t);
    await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'link-a'`);
    expect((await later).body.data.map((row) => row.id)).toEqual(['link-a']);
    // Woken by the change's notification again, in one read.
    expect(await pollReadsSince(t, before)).toEqual({ notification: 1, interval: 0 });
  });
});
