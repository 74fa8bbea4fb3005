import { DatabaseEnv } from './database.env';
import { validateDatabaseEnv, validateEnvSections } from './env';
import { HttpEnv } from './http.env';
import { KeysEnv } from './keys.env';
import { OperationsEnv } from './operations.env';
import { PagingEnv } from './paging.env';
import { RateLimitEnv } from './rate-limit.env';
import { RedisEnv } from './redis.env';

type Env = KeysEnv & PagingEnv & DatabaseEnv & HttpEnv & RateLimitEnv & RedisEnv & OperationsEnv;

/** Every section in one object, to read any variable by name. */
const validateEnv = (raw: Record<string, unknown>): Env =>
  Object.assign({}, ...validateEnvSections(raw)) as Env;

const SECRET = 'cursor-secret-of-at-least-32-chars';
const VALID = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  API_KEYS: 'k1',
  CURSOR_SECRET: SECRET,
};

/** The message for a `…_MS` variable out of its range. */
const milliseconds = (name: string, min: number) =>
  `${name} must be a whole number of milliseconds from ${min} to 2147483647`;

describe('validateEnv', () => {
  it('applies the defaults of docs/operations.md, Configuration', () => {
    expect({ ...validateEnv(VALID) }).toEqual({
      DATABASE_URL: VALID.DATABASE_URL,
      API_KEYS: ['k1'],
      CURSOR_SECRET: SECRET,
      PORT: 3000,
      METRICS_PORT: 9464,
      COUNT_CACHE_TTL_MS: 2000,
      DATABASE_TIMEOUT_MS: 5000,
      KEY_CACHE_TTL_MS: 10000,
      RATE_LIMIT_PER_KEY: 60000,
      RATE_LIMIT_PER_IP: 6000,
      RATE_LIMIT_WINDOW_MS: 60000,
      REDIS_KEY_PREFIX: 'links-clients:',
      DATABASE_REPLICA_URLS: [],
      DATABASE_PREPARED_STATEMENTS: true,
      DATABASE_ALLOW_UNVERIFIED: false,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      HEALTH_TIMEOUT_MS: 1000,
      SHUTDOWN_DRAIN_DELAY_MS: 5000,
      SHUTDOWN_TIMEOUT_MS: 15000,
      TRUST_PROXY: false,
      SERVER_TIMING: true,
      MAX_REQUESTS_IN_FLIGHT: 256,
      MAX_REQUESTS_PER_KEY: 32,
      MAX_WAITING_POLLS: 1000,
      MAX_WAITING_POLLS_PER_KEY: 100,
      MAX_CONCURRENT_POLL_READS: 4,
      MAX_CONCURRENT_COUNTS: 4,
      MAX_CONCURRENT_DEEP_PAGES: 2,
      MAX_CONCURRENT_LIST_RENDERS: 2,
      MAX_PAGE_DEPTH: 100000,
      RESPONSE_WRITE_TIMEOUT_MS: 30000,
    });
  });

  it('reads every variable and ignores unrelated ones', () => {
    const env = validateEnv({
      ...VALID,
      PORT: '8080',
      METRICS_PORT: '9100',
      METRICS_HOST: '127.0.0.1',
      CURSOR_SECRET_PREVIOUS: 'previous-cursor-secret-32-chars-x',
      COUNT_CACHE_TTL_MS: '0',
      DATABASE_TIMEOUT_MS: '250',
      KEY_CACHE_TTL_MS: '500',
      RATE_LIMIT_PER_KEY: '5',
      RATE_LIMIT_PER_IP: '2',
      RATE_LIMIT_WINDOW_MS: '1000',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'x:',
      CORS_ORIGINS: 'https://a.example, http://localhost:8080',
      DATABASE_REPLICA_URLS: 'postgres://r1/db, postgres://r2/db',
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_ALLOW_UNVERIFIED: 'true',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      HEALTH_TIMEOUT_MS: '300',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '20000',
      TRUST_PROXY: '2',
      SERVER_TIMING: 'false',
      MAX_REQUESTS_IN_FLIGHT: '10',
      MAX_REQUESTS_PER_KEY: '3',
      MAX_WAITING_POLLS: '7',
      MAX_WAITING_POLLS_PER_KEY: '5',
      MAX_CONCURRENT_POLL_READS: '2',
      MAX_CONCURRENT_COUNTS: '1',
      MAX_CONCURRENT_DEEP_PAGES: '1',
      MAX_CONCURRENT_LIST_RENDERS: '1',
      MAX_PAGE_DEPTH: '5000',
      RESPONSE_WRITE_TIMEOUT_MS: '1000',
      HOME: '/root',
    });
    expect({ ...env }).toEqual({
      DATABASE_URL: VALID.DATABASE_URL,
      API_KEYS: ['k1'],
      CURSOR_SECRET: SECRET,
      CURSOR_SECRET_PREVIOUS: 'previous-cursor-secret-32-chars-x',
      PORT: 8080,
      METRICS_PORT: 9100,
      METRICS_HOST: '127.0.0.1',
      COUNT_CACHE_TTL_MS: 0,
      DATABASE_TIMEOUT_MS: 250,
      KEY_CACHE_TTL_MS: 500,
      RATE_LIMIT_PER_KEY: 5,
      RATE_LIMIT_PER_IP: 2,
      RATE_LIMIT_WINDOW_MS: 1000,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'x:',
      CORS_ORIGINS: ['https://a.example', 'http://localhost:8080'],
      DATABASE_REPLICA_URLS: ['postgres://r1/db', 'postgres://r2/db'],
      DATABASE_PREPARED_STATEMENTS: false,
      DATABASE_ALLOW_UNVERIFIED: true,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      HEALTH_TIMEOUT_MS: 300,
      SHUTDOWN_DRAIN_DELAY_MS: 0,
      SHUTDOWN_TIMEOUT_MS: 20000,
      TRUST_PROXY: 2,
      SERVER_TIMING: false,
      MAX_REQUESTS_IN_FLIGHT: 10,
      MAX_REQUESTS_PER_KEY: 3,
      MAX_WAITING_POLLS: 7,
      MAX_WAITING_POLLS_PER_KEY: 5,
      MAX_CONCURRENT_POLL_READS: 2,
      MAX_CONCURRENT_COUNTS: 1,
      MAX_CONCURRENT_DEEP_PAGES: 1,
      MAX_CONCURRENT_LIST_RENDERS: 1,
      MAX_PAGE_DEPTH: 5000,
      RESPONSE_WRITE_TIMEOUT_MS: 1000,
    });
  });

  it('splits API_KEYS on commas, trimming and dropping blanks', () => {
    expect(validateEnv({ ...VALID, API_KEYS: ' a, b ,,c ' }).API_KEYS).toEqual(['a', 'b', 'c']);
  });

  it('accepts postgresql:// URLs', () => {
    expect(validateEnv({ ...VALID, DATABASE_URL: 'postgresql://x/y' }).DATABASE_URL).toBe(
      'postgresql://x/y',
    );
  });

  it('treats an empty value as unset', () => {
    expect(validateEnv({ ...VALID, PORT: '' }).PORT).toBe(3000);
    expect(() => validateEnv({ ...VALID, DATABASE_URL: '' })).toThrow('DATABASE_URL is required');
  });

  it('lets the database be the only source of keys (docs/operations.md, Configuration)', () => {
    expect(
      validateEnv({ DATABASE_URL: VALID.DATABASE_URL, CURSOR_SECRET: SECRET }).API_KEYS,
    ).toBeUndefined();
  });

  it('names every missing variable in one message', () => {
    expect(() => validateEnv({})).toThrow(
      'Invalid environment:\n  - API_KEYS is required (comma-separated API keys) unless DATABASE_URL holds managed keys\n  - CURSOR_SECRET is required (at least 32 characters)\n  - DATABASE_URL is required',
    );
  });

  it.each([
    ['PORT', 'abc', 'PORT must be an integer from 0 to 65535'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535'],
    ['PORT', '-1', 'PORT must be an integer from 0 to 65535'],
    ['DATABASE_URL', 'mysql://x/y', 'DATABASE_URL must be a postgres:// URL'],
    ['API_KEYS', ' , ,', 'API_KEYS must list at least one key'],
    ['CURSOR_SECRET', 'x'.repeat(31), 'CURSOR_SECRET must be at least 32 characters'],
    ['CURSOR_SECRET_PREVIOUS', 'short', 'CURSOR_SECRET_PREVIOUS must be at least 32 characters'],
    [
      'API_KEYS',
      'good,has space',
      'API_KEYS keys must be visible ASCII characters: no whitespace, no other characters',
    ],
    [
      'API_KEYS',
      'good,ключ-ключ-ключ-ключ-ключ-ключ-ключ',
      'API_KEYS keys must be visible ASCII characters: no whitespace, no other characters',
    ],
    ['KEY_CACHE_TTL_MS', '50', milliseconds('KEY_CACHE_TTL_MS', 100)],
    ['RATE_LIMIT_PER_KEY', '0', 'RATE_LIMIT_PER_KEY must be a whole number of requests, 1 or more'],
    ['RATE_LIMIT_PER_IP', '1.5', 'RATE_LIMIT_PER_IP must be a whole number of requests, 1 or more'],
    ['RATE_LIMIT_WINDOW_MS', '10', milliseconds('RATE_LIMIT_WINDOW_MS', 1000)],
    ['REDIS_URL', 'http://x', 'REDIS_URL must be a redis:// or rediss:// URL'],
    [
      'REDIS_URL',
      'redis://:pa#ss@redis.internal:6379',
      'REDIS_URL must be a redis:// or rediss:// URL, with @ : / ? # % in a user or password percent-encoded',
    ],
    ['REDIS_URL', 'redis://redis.internal:99999', 'REDIS_URL must be a redis:// or rediss:// URL'],
    ['REDIS_URL', 'redis://:pw@/0', 'REDIS_URL must be a redis:// or rediss:// URL'],
    ['REDIS_URL', 'rediss:user:pw@redis.internal', 'REDIS_URL must be a redis:// or rediss:// URL'],
    ['DATABASE_URL', 'postgres:/u:pw@db/app', 'DATABASE_URL must be a postgres:// URL'],
    [
      'DATABASE_URL',
      'postgres://u:pa%zz@h/db',
      'DATABASE_URL must be a postgres:// URL, with @ : / ? # % in a user or password percent-encoded',
    ],
    ['DATABASE_URL', 'postgres://u:p/ss@h/db', 'DATABASE_URL must be a postgres:// URL'],
    ['DATABASE_URL', 'postgres://u@h /db', 'DATABASE_URL must be a postgres:// URL'],
    ['HEALTH_TIMEOUT_MS', '2147483648', milliseconds('HEALTH_TIMEOUT_MS', 1)],
    ['SHUTDOWN_TIMEOUT_MS', '3000000000', milliseconds('SHUTDOWN_TIMEOUT_MS', 1)],
    ['CORS_ORIGINS', '*', 'CORS_ORIGINS must list origins such as https://app.example.com'],
    ['COUNT_CACHE_TTL_MS', '-5', milliseconds('COUNT_CACHE_TTL_MS', 0)],
    ['COUNT_CACHE_TTL_MS', '1.5', milliseconds('COUNT_CACHE_TTL_MS', 0)],
    ['DATABASE_TIMEOUT_MS', '0', milliseconds('DATABASE_TIMEOUT_MS', 1)],
    ['DATABASE_TIMEOUT_MS', '5s', milliseconds('DATABASE_TIMEOUT_MS', 1)],
    [
      'LOG_LEVEL',
      'verbose',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    [
      'DATABASE_REPLICA_URLS',
      'postgres://r1/db,mysql://r2/db',
      'DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs',
    ],
    [
      'DATABASE_URL',
      'postgres://u:pw@h/db?sslmode=prefer',
      'DATABASE_URL: sslmode must be one of disable, require, verify-ca, verify-full',
    ],
    [
      'DATABASE_URL',
      'postgres://h/db?sslmode=require&sslrootcert=/nonexistent/ca.pem',
      'DATABASE_URL: the sslrootcert file /nonexistent/ca.pem cannot be read',
    ],
    [
      'DATABASE_URL',
      'postgres://h/db?sslkey=/nonexistent/key.pem',
      'DATABASE_URL: the sslkey file /nonexistent/key.pem cannot be read',
    ],
    [
      'DATABASE_REPLICA_URLS',
      'postgres://r1/db?sslmode=verify-full,postgres://r2/db?sslmode=verify-ca',
      'DATABASE_REPLICA_URLS: sslmode=verify-ca needs sslrootcert=<CA file>',
    ],
    ['MAX_WAITING_POLLS', '0', 'MAX_WAITING_POLLS must be a whole number of requests, 1 or more'],
    ['LOG_FORMAT', 'text', 'LOG_FORMAT must be one of json, pretty'],
    ['DATABASE_PREPARED_STATEMENTS', 'no', 'DATABASE_PREPARED_STATEMENTS must be true or false'],
    ['SERVER_TIMING', 'off', 'SERVER_TIMING must be true or false'],
    ['HEALTH_TIMEOUT_MS', '0', milliseconds('HEALTH_TIMEOUT_MS', 1)],
    ['SHUTDOWN_DRAIN_DELAY_MS', '-1', milliseconds('SHUTDOWN_DRAIN_DELAY_MS', 0)],
    ['SHUTDOWN_TIMEOUT_MS', '0', milliseconds('SHUTDOWN_TIMEOUT_MS', 1)],
  ])('rejects %s=%j', (name, value, message) => {
    expect(() => validateEnv({ ...VALID, [name]: value })).toThrow(message);
  });

  it('accepts URLs whose user and password are percent-encoded, and sockets', () => {
    const url = 'postgres://app:p%23ss%2Fw%40rd@db.internal:5432/app';
    expect(validateEnv({ ...VALID, DATABASE_URL: url }).DATABASE_URL).toBe(url);
    for (const socket of [
      'postgresql:///app?host=/var/run/postgresql',
      'postgres://app@/app?host=/var/run/postgresql',
    ])
      expect(validateEnv({ ...VALID, DATABASE_URL: socket }).DATABASE_URL).toBe(socket);
    const redis = 'rediss://default:s3cr%23t@redis.internal:6380/2';
    expect(validateEnv({ ...VALID, REDIS_URL: redis }).REDIS_URL).toBe(redis);
    expect(validateEnv({ ...VALID, HEALTH_TIMEOUT_MS: '2147483647' }).HEALTH_TIMEOUT_MS).toBe(
      2147483647,
    );
  });

  it('never repeats a rejected URL, whose password it may hold', () => {
    const attempt = () =>
      validateEnv({
        ...VALID,
        DATABASE_URL: 'postgres://u:hunter2#x@h/db',
        REDIS_URL: 'redis://:hunter3#x@h:6379',
        DATABASE_REPLICA_URLS: 'postgres://r:hunter4%@h/db',
      });
    expect(attempt).toThrow('DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs');
    expect(attempt).not.toThrow(/hunter/);
  });

  it.each([
    ['false', false],
    ['0', 0],
    ['1', 1],
    ['10', 10],
    ['10.0.0.0/8', ['10.0.0.0/8']],
    [' 10.1.2.3 , fd00::/8,loopback', ['10.1.2.3', 'fd00::/8', 'loopback']],
  ])('maps TRUST_PROXY=%j to Express trust proxy %j', (value, expected) => {
    expect(validateEnv({ ...VALID, TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each([
    'true',
    'yes',
    '1.5',
    '-1',
    '11',
    '1000',
    '10.0.0.0/33',
    '10.0.0/8',
    'proxy.example',
    '10.0.0.1,,x',
    '::1.2.3.4',
    '64:ff9b::1.2.3.4/120',
  ])('rejects TRUST_PROXY=%j with a clear message', (value) => {
    expect(() => validateEnv({ ...VALID, TRUST_PROXY: value })).toThrow(
      'TRUST_PROXY must be a hop count from 0 to 10 (e.g. 1) or comma-separated proxy addresses or CIDRs',
    );
  });

  it.each([
    '0.0.0.0/0',
    '::/0',
    '0.0.0.0/1,128.0.0.0/1',
    '::ffff:0.0.0.0/96',
    '::ffff:0:0/96',
    '10.0.0.0/8,0.0.0.0/0,loopback',
    '0.0.0.0/2,64.0.0.0/2,::ffff:128.0.0.0/97',
    '::/1,8000::/1',
    '::/1,8000::/2,c000::/2',
    // Every IPv4 address, as IPv6 spells it.
    '::/1',
  ])('refuses TRUST_PROXY=%j, which trusts every address, in one line', (value) => {
    expect(() => validateEnv({ ...VALID, TRUST_PROXY: value })).toThrow(
      new Error(
        'Invalid environment:\n  - TRUST_PROXY trusts every address (such as 0.0.0.0/0, ::/0 or ' +
          'ranges that add up to them), so any client could forge its address: name the proxies in front instead',
      ),
    );
  });

  it.each([
    '0.0.0.0/1',
    '0.0.0.0/1,128.0.0.0/2',
    '::ffff:0.0.0.0/97',
    '8000::/1',
    '10.0.0.0/8,::ffff:10.0.0.0/104,fd00::/8',
  ])('accepts TRUST_PROXY=%j, which leaves addresses untrusted', (value) => {
    expect(validateEnv({ ...VALID, TRUST_PROXY: value }).TRUST_PROXY).toEqual(value.split(','));
  });

  it.each(['localhost', '0.0.0.0:9464', 'metrics.internal', ' '])(
    'refuses METRICS_HOST=%j, which is no IP address',
    (value) => {
      expect(() => validateEnv({ ...VALID, METRICS_HOST: value })).toThrow(
        'METRICS_HOST must be an IP address of this host (e.g. 127.0.0.1); unset, every interface',
      );
    },
  );

  it('refuses a metrics port equal to the HTTP port, unless both are any free port', () => {
    expect(() => validateEnv({ ...VALID, PORT: '9464' })).toThrow(
      'METRICS_PORT must differ from PORT: /metrics has a port of its own',
    );
    expect(validateEnv({ ...VALID, PORT: '0', METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
  });

  it('refuses a previous cursor secret equal to the current one', () => {
    expect(() => validateEnv({ ...VALID, CURSOR_SECRET_PREVIOUS: SECRET })).toThrow(
      'CURSOR_SECRET_PREVIOUS must differ from CURSOR_SECRET',
    );
  });

  it('names several invalid variables at once', () => {
    let message = '';
    try {
      validateEnv({ PORT: 'x', DATABASE_URL: 'nope', API_KEYS: ' , ', DATABASE_TIMEOUT_MS: '0' });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of ['PORT', 'DATABASE_URL', 'API_KEYS', 'DATABASE_TIMEOUT_MS'])
      expect(message).toContain(name);
  });
});

describe('validateDatabaseEnv', () => {
  it('needs only the database variables', () => {
    expect({ ...validateDatabaseEnv({ DATABASE_URL: VALID.DATABASE_URL }) }).toEqual({
      DATABASE_URL: VALID.DATABASE_URL,
      DATABASE_TIMEOUT_MS: 5000,
      DATABASE_REPLICA_URLS: [],
      DATABASE_PREPARED_STATEMENTS: true,
      DATABASE_ALLOW_UNVERIFIED: false,
    });
    expect(() => validateDatabaseEnv({})).toThrow('DATABASE_URL is required');
  });
});
