import { ServiceUnavailableException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseEnv } from '../config/database.env';
import { waitFor } from '../../test/support/wait-for';
import { ABANDON_AFTER_MS, DatabaseReader } from './database-reader';
import { DatabasePools, ReplicaPool } from './pools';

interface Sent {
  pool: string;
  name?: string;
  text: string;
}

/**
 * A data source whose pools answer after `ms`, recording what was sent and released. Like pg's,
 * its pools and connections answer callbacks. The deadline is far beyond `ms` unless a test is
 * about the deadline (a loaded machine may delay a 0 ms timer by tens of milliseconds).
 */
function readerAnsweringIn(
  ms: number,
  mode: 'master' | 'slave' = 'slave',
  connectMs = 0,
  timeoutMs = 5000,
  broken = ['broken'],
) {
  const sent: Sent[] = [];
  const configs: unknown[] = [];
  const released: unknown[] = [];
  type QueryCallback = (error: Error | null, result?: { rows: unknown[] }) => void;
  const connection = (pool: string) => ({
    on: () => undefined,
    removeListener: () => undefined,
    query(
      config: string | { name?: string; text: string },
      params: unknown,
      done?: QueryCallback,
    ): Promise<unknown> | undefined {
      // Without a callback, pg answers a promise.
      if (!done) {
        return new Promise((resolve, reject) =>
          this.query(config, params, (error, result) => (error ? reject(error) : resolve(result))),
        );
      }
      if (config === 'unqueryable') throw new Error('Client was closed and is not queryable');
      // A connection the network dropped without a word: no answer, ever.
      if (config === 'unanswered') return;
      setTimeout(() => {
        configs.push(config);
        // As pg reads a config: a text alone, or an object's own and inherited properties.
        const query = typeof config === 'string' ? { text: config } : config;
        sent.push({ pool, name: query.name, text: query.text });
        if (broken.includes(query.text)) done(new Error('broken'));
        else if (query.text === 'refused')
          done(Object.assign(new Error('refused'), { code: '57014' }));
        else done(null, { rows: [{ pool }] });
      }, ms);
      return undefined;
    },
  });
  const pool = (name: string) => ({
    connect: (callback: (...args: unknown[]) => void) =>
      setTimeout(
        () =>
          callback(undefined, connection(name), (error?: unknown) => released.push(error ?? 'ok')),
        connectMs,
      ),
  });
  const dataSource = { driver: { master: { ...pool('primary'), options: {} } } };
  const env = { DATABASE_TIMEOUT_MS: timeoutMs, DATABASE_REPLICA_URLS: [] as string[] };
  const pools = new DatabasePools(dataSource as unknown as DataSource, env as DatabaseEnv);
  // With replicas ('slave'), reads go to one: this one.
  if (mode === 'slave') pools.replicas.push(pool('replica') as unknown as ReplicaPool);
  return {
    reader: new DatabaseReader(pools, env as DatabaseEnv),
    sent,
    configs,
    released,
  };
}

/** A 503 whose cause, for the log, says what the deadline passed waiting for. */
const waitedFor = (what: string) =>
  expect.objectContaining({
    constructor: ServiceUnavailableException,
    cause: expect.objectContaining({ message: `no ${what} within DATABASE_TIMEOUT_MS` }),
  });

describe('DatabaseReader', () => {
  it('reads where reads belong and releases the connection', async () => {
    const replica = readerAnsweringIn(1, 'slave');
    await expect(replica.reader.query('SELECT 1', [])).resolves.toEqual([{ pool: 'replica' }]);
    const primary = readerAnsweringIn(1, 'master');
    await expect(primary.reader.query('SELECT 1', [])).resolves.toEqual([{ pool: 'primary' }]);
    expect([...replica.released, ...primary.released]).toEqual(['ok', 'ok']);
  });

  it('names one prepared statement per query text', async () => {
    const { reader, sent } = readerAnsweringIn(1);
    for (const text of ['SELECT 1', 'SELECT 2', 'SELECT 1']) {
      await reader.query(text, [], { prepared: true });
    }
    expect(sent.map(({ name }) => name)).toEqual(['api_1', 'api_2', 'api_1']);
  });

  // pg copies a config's own properties one by one (descriptors) before reading it, which cost
  // more than anything else it does for a get by id.
  it('hands pg configs without own properties to copy', async () => {
    const { reader, configs } = readerAnsweringIn(1);
    await reader.query('SELECT $1::int', [1], { prepared: true });
    await reader.query('SELECT $1::int', [1]);
    expect(configs.map((config) => typeof config === 'object' && Object.keys(config!))).toEqual([
      [],
      false,
    ]);
  });

  it('sends a statement not asked to be prepared unnamed, planned for its parameters', async () => {
    const { reader, sent } = readerAnsweringIn(1);
    await reader.query('SELECT $1::int', [1]);
    await reader.query('SELECT $1::int', [1], { primary: true });
    expect(sent.map(({ name }) => name)).toEqual([undefined, undefined]);
  });

  it('stops naming statements past a bound, so connections never fill up', async () => {
    const { reader, sent } = readerAnsweringIn(0);
    for (let n = 0; n < 250; n++) await reader.query(`SELECT ${n}`, [], { prepared: true });
    expect(new Set(sent.map(({ name }) => name)).size).toBe(201);
    expect(sent.at(-1)?.name).toBeUndefined();
  });

  it('hands a failed connection back to the pool to be dropped', async () => {
    const { reader, released } = readerAnsweringIn(1);
    await expect(reader.query('broken', [])).rejects.toThrow('broken');
    expect(released).toEqual([new Error('broken')]);
  });

  it('fails a read whose connection cannot take a query, and drops that connection', async () => {
    const { reader, released } = readerAnsweringIn(1);
    await expect(reader.query('unqueryable', [])).rejects.toThrow('not queryable');
    expect(released).toEqual([new Error('Client was closed and is not queryable')]);
  });

  it('keeps the connection of a statement the server refused or cancelled', async () => {
    const { reader, released } = readerAnsweringIn(1);
    await expect(reader.query('refused', [])).rejects.toThrow('refused');
    expect(released).toEqual(['ok']);
  });

  it('does not run a query whose caller was given up on before it got a connection', async () => {
    const { reader, sent, released } = readerAnsweringIn(1, 'slave', 100, 50);
    await expect(reader.query('SELECT 1', [])).rejects.toMatchObject(
      waitedFor('pooled connection'),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sent).toEqual([]);
    expect(released).toEqual(['ok']);
  });

  it('drops a connection whose query never answers, ABANDON_AFTER_MS after the 503', async () => {
    const { reader, released } = readerAnsweringIn(1, 'slave', 0, 50);
    const started = Date.now();
    await expect(reader.query('unanswered', [])).rejects.toBeInstanceOf(
      ServiceUnavailableException,
    );
    await new Promise((resolve) => setTimeout(resolve, ABANDON_AFTER_MS / 2));
    expect(released).toEqual([]);
    await waitFor(() => released.length > 0, {
      what: 'the connection to be handed back',
      timeoutMs: ABANDON_AFTER_MS * 5,
    });
    expect(released).toEqual([new Error('The database did not answer on this connection')]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50 + ABANDON_AFTER_MS - 5);
  });

  it('answers 503 once DATABASE_TIMEOUT_MS has passed, and still releases the connection later', async () => {
    const { reader, sent, released } = readerAnsweringIn(200, 'slave', 0, 50);
    await expect(reader.query('SELECT pg_sleep(1)', [])).rejects.toMatchObject(waitedFor('answer'));
    // Before the answer (its timer is due later, and timers fire in order however late).
    expect(sent).toEqual([]);
    expect(released).toEqual([]);
    await waitFor(() => released.length > 0, { what: 'the connection to be handed back' });
    expect(released).toEqual(['ok']);
  });

  describe('inSnapshot', () => {
    const inOne = (reader: DatabaseReader, ...texts: string[]) =>
      reader.inSnapshot(async (query) => {
        const rows = [];
        for (const text of texts) rows.push(...(await query<unknown[]>(text, [])));
        return rows;
      });

    it('runs its statements in one read-only REPEATABLE READ transaction, on one connection', async () => {
      const { reader, sent, released } = readerAnsweringIn(1);
      await expect(inOne(reader, 'SELECT 1', 'SELECT 2')).resolves.toEqual([
        { pool: 'replica' },
        { pool: 'replica' },
      ]);
      expect(sent.map(({ text }) => text)).toEqual([
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
        'SELECT 1',
        'SELECT 2',
        'COMMIT',
      ]);
      expect(released).toEqual(['ok']);
    });

    it('drops the connection after a failed statement, never handing it back mid-transaction', async () => {
      const { reader, sent, released } = readerAnsweringIn(1);
      await expect(inOne(reader, 'SELECT 1', 'refused')).rejects.toThrow('refused');
      expect(sent.map(({ text }) => text)).not.toContain('COMMIT');
      expect(released).toEqual([new Error('refused')]);
    });

    it('keeps its answer when only the COMMIT fails, and drops the connection', async () => {
      const { reader, released } = readerAnsweringIn(1, 'slave', 0, 5000, ['COMMIT']);
      await expect(inOne(reader, 'SELECT 1')).resolves.toEqual([{ pool: 'replica' }]);
      expect(released).toEqual([new Error('broken')]);
    });

    it('gives the wait for a connection and the BEGIN one DATABASE_TIMEOUT_MS, as a query has', async () => {
      const { reader, sent, released } = readerAnsweringIn(60, 'slave', 60, 100);
      await expect(inOne(reader, 'SELECT 1')).rejects.toBeInstanceOf(ServiceUnavailableException);
      await waitFor(() => released.length > 0, { what: 'the late connection to be dropped' });
      expect(sent.map(({ text }) => text)).toEqual([
        'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      ]);
      expect(released[0]).toBeInstanceOf(ServiceUnavailableException);
    });

    it('answers 503 when a statement outlives DATABASE_TIMEOUT_MS, and drops its connection', async () => {
      const { reader, released } = readerAnsweringIn(1, 'slave', 0, 50);
      await expect(inOne(reader, 'SELECT 1', 'unanswered')).rejects.toMatchObject(
        waitedFor('answer'),
      );
      expect(released).toHaveLength(1);
      expect(released[0]).toBeInstanceOf(ServiceUnavailableException);
    });

    it('answers 503 when no connection comes within DATABASE_TIMEOUT_MS, and releases it when it does', async () => {
      const { reader, sent, released } = readerAnsweringIn(1, 'slave', 100, 50);
      await expect(inOne(reader, 'SELECT 1')).rejects.toMatchObject(waitedFor('pooled connection'));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(sent).toEqual([]);
      expect(released).toEqual(['ok']);
    });
  });
});
