import { mkdirSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { validateDatabaseEnv } from '../config/env';
import { dataSourceOptions } from '../database/data-source';
import { ApiKeyCommands } from '../api-keys/api-key-commands';
import { ApiKey } from '../api-keys/api-key.entity';
import { parseDuration } from '../api-keys/duration';
import { ENTITIES } from '../entities';

const USAGE = `Usage:
  npm run keys -- create --name <name> [--expires-in <n>(m|h|d|w)]   prints the new key once
  npm run keys -- list                                                 never shows a key
  npm run keys -- revoke <id|prefix>
Uses DATABASE_URL, or the embedded development database (.data/postgres) when it is unset.`;

class UsageError extends Error {}

/** `npm run keys`: issue, list and revoke the API keys kept in the database (issue 3). */
async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const run = {
    create: () => create(rest),
    list: () => list(rest),
    revoke: () => revoke(rest),
  }[command];
  if (!run) throw new UsageError(command ? `Unknown command: ${command}` : 'No command given');
  await run();
}

async function create(args: string[]): Promise<void> {
  const options = parseOptions(args, ['--name', '--expires-in']);
  const name = options['--name']?.trim();
  if (!name) throw new UsageError('create needs --name <name>');
  const expiresIn = options['--expires-in'];
  const lifetimeMs = expiresIn ? parseDuration(expiresIn) : null;
  await withDatabase(async (keys) => {
    const expiresAt = lifetimeMs === null ? null : new Date(Date.now() + lifetimeMs);
    const { key, record } = await keys.create(name, expiresAt);
    console.log(`Created key ${record.prefix} (id ${record.id}) for "${record.name}"`);
    console.log(`  expires: ${record.expiresAt?.toISOString() ?? 'never'}`);
    console.log(`\n  ${key}\n`);
    console.log('This is the only time the key is shown; store it now. The API accepts it');
    console.log('within a second (it re-reads its keys when it meets an unknown one).');
  });
}

async function list(args: string[]): Promise<void> {
  parseOptions(args, []);
  await withDatabase(async (keys) => {
    const rows = await keys.list();
    if (rows.length === 0)
      return console.log('No keys. Create one with: npm run keys -- create --name <name>');
    console.table(rows.map(describe));
  });
}

async function revoke(args: string[]): Promise<void> {
  if (args.length !== 1) throw new UsageError('revoke needs exactly one <id|prefix>');
  await withDatabase(async (keys) => {
    const revoked = await keys.revoke(args[0]);
    if (!revoked) throw new Error(`No key has the id or prefix ${args[0]}`);
    console.log(
      `Revoked key ${revoked.prefix} (id ${revoked.id}, "${revoked.name}") at ${revoked.revokedAt?.toISOString()}`,
    );
    console.log('Running servers refuse it within KEY_CACHE_TTL_MS (default 10 s).');
  });
}

function describe(key: ApiKey) {
  const time = (date: Date | null) => date?.toISOString() ?? '-';
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created: time(key.createdAt),
    expires: time(key.expiresAt),
    revoked: time(key.revokedAt),
    lastUsed: time(key.lastUsedAt),
  };
}

function parseOptions(args: string[], allowed: string[]): Record<string, string> {
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const [name, value] = [args[i], args[i + 1]];
    if (!allowed.includes(name)) throw new UsageError(`Unknown option: ${name}`);
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    options[name] = value;
  }
  return options;
}

/**
 * Connects to DATABASE_URL, or to the development database: the running `npm start` server
 * if there is one, else the CLI starts it for the duration of the command and migrates it.
 */
async function withDatabase(work: (keys: ApiKeyCommands) => Promise<void>): Promise<void> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!process.env.DATABASE_URL) {
    const { useDevelopmentDatabase } = await import('../dev/embedded-database.js');
    mkdirSync('.data', { recursive: true });
    const embedded = await useDevelopmentDatabase('.data/postgres');
    process.env.DATABASE_URL = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const env = validateDatabaseEnv(process.env);
  const dataSource = new DataSource({
    ...dataSourceOptions({ url: env.DATABASE_URL, timeoutMs: env.DATABASE_TIMEOUT_MS }),
    entities: ENTITIES,
  });
  try {
    await dataSource.initialize();
    if (stopEmbedded) await dataSource.runMigrations({ transaction: 'each' });
    await work(new ApiKeyCommands(dataSource));
  } catch (error) {
    if ((error as { driverError?: { code?: string } }).driverError?.code === '42P01') {
      throw new Error('The api_keys table is missing: run `npm run migration:run` first', {
        cause: error,
      });
    }
    throw error;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await stopEmbedded?.();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  if (error instanceof UsageError) console.error(`\n${USAGE}`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
