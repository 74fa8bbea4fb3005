import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateDatabaseEnv, validateEnvSections } from './env';
import { readSecretFiles, SECRET_VARIABLES } from './secret-files';

describe('readSecretFiles', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true }));

  it('reads every secret variable from its file, dropping one trailing newline', () => {
    const env: Record<string, string> = {};
    for (const name of SECRET_VARIABLES) env[`${name}_FILE`] = file(name, `${name}-value \n`);
    expect(readSecretFiles(env)).toEqual([]);
    expect(env).toEqual(
      Object.fromEntries(SECRET_VARIABLES.map((name) => [name, `${name}-value `])),
    );
  });

  it('keeps a value without a trailing newline whole, and a CRLF file without its CRLF', () => {
    const env = { CURSOR_SECRET_FILE: file('a', 'abc\n\n'), API_KEYS_FILE: file('b', 'k1,k2\r\n') };
    readSecretFiles(env);
    expect(env).toEqual({ CURSOR_SECRET: 'abc\n', API_KEYS: 'k1,k2' });
  });

  it('reads an empty file as unset, as an empty variable is (an unused key of a Secret)', () => {
    const secret = 'cursor-secret-of-at-least-32-chars';
    const [, paging] = validateEnvSections({
      API_KEYS: 'k1',
      DATABASE_URL: 'postgres://u@localhost/db',
      CURSOR_SECRET: secret,
      CURSOR_SECRET_PREVIOUS_FILE: file('previous', '\n'),
    }) as [unknown, { CURSOR_SECRET_PREVIOUS?: string }];
    expect(paging.CURSOR_SECRET_PREVIOUS).toBeUndefined();
  });

  it('refuses a variable set both ways, and a file it cannot read, naming each', () => {
    const env = {
      API_KEYS: 'k1',
      API_KEYS_FILE: file('keys', 'k2'),
      CURSOR_SECRET_FILE: join(dir, 'missing'),
    };
    expect(readSecretFiles(env)).toEqual([
      'API_KEYS and API_KEYS_FILE are both set: set only one',
      `CURSOR_SECRET_FILE: ${join(dir, 'missing')} cannot be read (ENOENT)`,
    ]);
    expect(env.API_KEYS).toBe('k1');
    expect(readSecretFiles(env)).toEqual([]);
  });

  // Reading a FIFO would wait for a writer: the boot would hang without a message.
  // (A writer waits on the FIFO, so that a read of it returns instead of holding this test.)
  it('refuses anything but a regular file (a FIFO, a directory, a device), in one line each', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `echo written-to-the-fifo > '${fifo}'`]);
    try {
      const env = { CURSOR_SECRET_FILE: fifo, API_KEYS_FILE: dir, REDIS_URL_FILE: '/dev/null' };
      expect(readSecretFiles(env)).toEqual([
        `API_KEYS_FILE: ${dir} is not a regular file`,
        `CURSOR_SECRET_FILE: ${fifo} is not a regular file`,
        'REDIS_URL_FILE: /dev/null is not a regular file',
      ]);
    } finally {
      writer.kill();
    }
  });

  it('follows a symbolic link to a regular file, as a mounted Kubernetes Secret holds', () => {
    const link = join(dir, 'link');
    symlinkSync(file('target', 'k1\n'), link);
    const env: Record<string, string> = { API_KEYS_FILE: link };
    expect(readSecretFiles(env)).toEqual([]);
    expect(env).toEqual({ API_KEYS: 'k1' });
  });

  it('is applied by the validation, whose one message names the problem', () => {
    const secret = 'cursor-secret-of-at-least-32-chars';
    const [, paging] = validateEnvSections({
      API_KEYS: 'k1',
      DATABASE_URL_FILE: file('url', 'postgres://u@localhost/db\n'),
      CURSOR_SECRET_FILE: file('secret', `${secret}\n`),
    }) as [unknown, { CURSOR_SECRET: string }];
    expect(paging.CURSOR_SECRET).toBe(secret);
    expect(() =>
      validateEnvSections({
        API_KEYS: 'k1',
        API_KEYS_FILE: file('k', 'k2'),
        CURSOR_SECRET: secret,
      }),
    ).toThrow(/Invalid environment:[^]*API_KEYS and API_KEYS_FILE are both set/);
    const url = file('db', 'postgres://u@localhost/other\n');
    expect(validateDatabaseEnv({ DATABASE_URL_FILE: url }).DATABASE_URL).toBe(
      'postgres://u@localhost/other',
    );
  });
});
