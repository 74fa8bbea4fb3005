import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import { ApiKeyCommands } from '../../src/api-keys/api-key-commands';
import { generateApiKey } from '../../src/api-keys/api-key-format';
import { createTestApp, TestApp } from '../support/create-app';
import { waitFor } from '../support/wait-for';

const KEY_CACHE_TTL_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Managed API keys', () => {
  let t: TestApp;
  let keys: ApiKeyCommands;
  const server = () => t.app.getHttpServer();
  const call = (key: string) =>
    request(server()).get('/api/data/links').set('Authorization', `Bearer ${key}`);
  /**
   * Calls with `key` until one answers `status`; when each of the calls that did not was sent.
   * A rule "within N ms of an event" holds when none of those was sent N ms or more after it:
   * a loaded machine sends fewer calls, never later ones that the rule allows to fail.
   */
  const sentBefore = async (key: string, status: number): Promise<number[]> => {
    const others: number[] = [];
    await waitFor(
      async () => {
        const sentAt = Date.now();
        const isDone = (await call(key)).status === status;
        if (!isDone) others.push(sentAt);
        return isDone;
      },
      { what: `a ${status} for the key`, timeoutMs: 20_000 },
    );
    return others;
  };
  // Unknown keys re-read the active keys at most once a second (every KEY_CACHE_TTL_MS here).
  // `key` was just created, committed: from now on.
  const accepted = async (key: string) => {
    const since = Date.now();
    const refusedAt = await sentBefore(key, 200);
    expect(refusedAt.filter((at) => at >= since + KEY_CACHE_TTL_MS)).toEqual([]);
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) } });
    keys = new ApiKeyCommands(t.dataSource);
  });
  afterAll(() => t.close());

  it('issues keys in a recognisable format and stores only a hash and the prefix', async () => {
    const { key, record } = await keys.create('format');
    expect(key).toMatch(/^lcapi_[0-9A-Za-z]{51}$/);
    expect(record.prefix).toBe(key.slice(0, 14));
    const [row] = await t.dataSource.query(
      `SELECT row_to_json(k)::text AS text FROM api_keys k WHERE id = $1`,
      [record.id],
    );
    expect(row.text).not.toContain(key.slice(14));
    expect((await keys.list()).map((listed) => JSON.stringify(listed)).join()).not.toContain(
      key.slice(14),
    );
  });

  it('accepts a key from creation on, and refuses it within KEY_CACHE_TTL_MS of revocation', async () => {
    const { key, record } = await keys.create('consumer');
    await accepted(key);
    await keys.revoke(record.prefix);
    const revokedAt = Date.now();
    const acceptedAt = await sentBefore(key, 401);
    expect(acceptedAt.filter((at) => at >= revokedAt + KEY_CACHE_TTL_MS)).toEqual([]);
    const res = await call(key);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    // …and stays refused.
    await sleep(KEY_CACHE_TTL_MS + 100);
    await call(key).expect(401);
  });

  it('refuses an expired key, at its expiry', async () => {
    const { key: expired } = await keys.create('expired', new Date(Date.now() - 1000));
    await call(expired).expect(401);
    const { key: expiring } = await keys.create('expiring', new Date(Date.now() + 3000));
    await accepted(expiring);
    await sleep(3100);
    await call(expiring).expect(401);
  });

  it('still accepts API_KEYS keys, and refuses unknown keys of the managed format', async () => {
    await call('test-key-primary').expect(200);
    await call(generateApiKey()).expect(401);
  });

  it('writes last_used_at off the request path, at most once a minute', async () => {
    const { key, record } = await keys.create('usage');
    const lastUsed = async () =>
      (await t.dataSource.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [record.id]))[0]
        .last_used_at as Date | null;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    await accepted(key);
    await waitFor(async () => (await lastUsed()) !== null, { what: 'last_used_at to be written' });
    const first = (await lastUsed()) as Date;
    expect(first.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const update = jest.spyOn(PgClient.prototype, 'query');
    try {
      for (let i = 0; i < 10; i++) await call(key).expect(200);
      await sleep(1500);
      const updates = update.mock.calls.filter(([sql]) => /UPDATE api_keys/.test(String(sql)));
      expect(updates).toHaveLength(0);
    } finally {
      update.mockRestore();
    }
    expect(await lastUsed()).toEqual(first);
  });

  it('answers a flood of random keys without a database query per request', async () => {
    await accepted((await keys.create('warm-up')).key);
    const queries = jest.spyOn(PgClient.prototype, 'query');
    const start = Date.now();
    let sent = 0;
    try {
      for (; sent < 300; sent++) {
        const candidate =
          sent % 2 === 0 ? generateApiKey() : `guess-${randomBytes(12).toString('hex')}`;
        await call(candidate).expect(401);
      }
    } finally {
      queries.mockRestore();
    }
    const elapsed = Date.now() - start;
    // At most one read of the active keys per KEY_CACHE_TTL_MS, however many keys are tried
    // (a machine slower to send them allows more reads, never more per interval).
    expect(queries.mock.calls.length).toBeLessThanOrEqual(
      Math.ceil(elapsed / KEY_CACHE_TTL_MS) + 1,
    );
  });
});
