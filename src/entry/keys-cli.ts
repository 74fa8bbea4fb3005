import { parseArgs, ParseArgsConfig } from 'node:util';
import { ApiKeyCommands, ListedApiKey } from '../api-keys/api-key-commands';
import { OPERATIONS } from '../api-keys/key-scope';
import { SCOPE_OPTIONS, scopeOf, scopeText } from '../api-keys/scope-options';
import { parseDuration } from '../api-keys/duration';
import { withMigrationHint } from '../api-keys/missing-table';
import { standaloneDataSource } from '../standalone-data-source';
import { UsageError } from '../api-keys/usage-error';

const USAGE = `Usage:
  npm run keys -- create --name <name> [--expires-in <n>(m|h|d|w)] [scope]   prints the key once
  npm run keys -- scope <id|prefix> [scope]          changes what a key may see
  npm run keys -- list                               keys and their scopes; never shows a key
  npm run keys -- revoke <id|prefix>
Scope (each optional; unset on create: everything):
  --operations <list>   comma-separated, of ${OPERATIONS.join(', ')}; \`all\`: every one
  --links <list>        comma-separated link ids the key sees the rows of; \`all\`: every link
  --links-file <path>   the same, one link id a line (thousands of links)
Uses DATABASE_URL, or the embedded development database (.data/postgres) when it is unset.`;

// The api_keys.name check constraint's limit.
const MAX_NAME_LENGTH = 200;

function durationOf(text: string): number {
  try {
    return parseDuration(text);
  } catch (error) {
    throw new UsageError(`--expires-in: ${(error as Error).message}`);
  }
}

/** `npm run keys`: issue, list and revoke the API keys kept in the database. */
async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  const run = {
    create: () => create(rest),
    scope: () => scope(rest),
    list: () => list(rest),
    revoke: () => revoke(rest),
  }[command];
  if (!run) throw new UsageError(command ? `Unknown command: ${command}` : 'No command given');
  await run();
}

async function create(args: string[]): Promise<void> {
  const { values } = parse(args, {
    name: { type: 'string' },
    'expires-in': { type: 'string' },
    ...SCOPE_OPTIONS,
  });
  const name = (values.name as string | undefined)?.trim();
  if (!name) throw new UsageError('create needs --name <name>');
  if ([...name].length > MAX_NAME_LENGTH)
    throw new UsageError(`--name is longer than ${MAX_NAME_LENGTH} characters`);
  // Control and format characters (newlines, escapes, bidi overrides) would disguise a listing.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name))
    throw new UsageError('--name must not hold control or format characters (newlines, escapes)');
  const expiresIn = values['expires-in'] as string | undefined;
  // Given but empty (an unset shell variable, say) is an error, not a key that never expires.
  const lifetimeMs = expiresIn === undefined ? null : durationOf(expiresIn);
  const scope = scopeOf(values);
  await withDatabase(async (keys) => {
    const expiresAt = lifetimeMs === null ? null : new Date(Date.now() + lifetimeMs);
    const { key, record } = await keys.create(name, expiresAt, scope);
    console.log(`Created key ${record.prefix} (id ${record.id}) for "${record.name}"`);
    console.log(`  expires: ${record.expiresAt?.toISOString() ?? 'never'}`);
    console.log(`  scope: ${scopeText({ record, links: scope.links ?? undefined })}`);
    console.log(`\n  ${key}\n`);
    console.log('This is the only time the key is shown; store it now. The API accepts it');
    console.log('within a second (it re-reads its keys when it meets an unknown one).');
  });
}

async function scope(args: string[]): Promise<void> {
  const { positionals, values } = parse(args, SCOPE_OPTIONS, 1);
  if (positionals.length !== 1) throw new UsageError('scope needs exactly one <id|prefix>');
  const change = scopeOf(values);
  if (change.operations === undefined && change.links === undefined)
    throw new UsageError('scope needs --operations, --links or --links-file');
  await withDatabase(async (keys) => {
    const changed = await keys.scope(positionals[0], change);
    if (!changed) throw new Error(`No key has the id or prefix ${positionals[0]}`);
    console.log(`Key ${changed.record.prefix} (id ${changed.record.id}): ${scopeText(changed)}`);
    console.log(
      'Its queries see the new links at once; operations and long polls within KEY_CACHE_TTL_MS.',
    );
  });
}

async function list(args: string[]): Promise<void> {
  parse(args);
  await withDatabase(async (keys) => {
    const rows = await keys.list();
    if (rows.length === 0)
      return console.log('No keys. Create one with: npm run keys -- create --name <name>');
    console.table(rows.map(describe));
  });
}

async function revoke(args: string[]): Promise<void> {
  const { positionals } = parse(args, {}, 1);
  if (positionals.length !== 1) throw new UsageError('revoke needs exactly one <id|prefix>');
  await withDatabase(async (keys) => {
    const revoked = await keys.revoke(positionals[0]);
    if (!revoked) throw new Error(`No key has the id or prefix ${positionals[0]}`);
    console.log(
      `Revoked key ${revoked.prefix} (id ${revoked.id}, "${revoked.name}") at ${revoked.revokedAt?.toISOString()}`,
    );
    console.log('Running servers refuse it within KEY_CACHE_TTL_MS (default 10 s).');
  });
}

function describe(listed: ListedApiKey) {
  const time = (date: Date | null) => date?.toISOString() ?? '-';
  const { record: key } = listed;
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created: time(key.createdAt),
    expires: time(key.expiresAt),
    revoked: time(key.revokedAt),
    lastUsed: time(key.lastUsedAt),
    scope: scopeText(listed),
  };
}

/**
 * node:util's parser, strict: an unknown option, a repeated one (which it would take the last
 * of) or a stray argument is a usage error.
 */
function parse(args: string[], options: ParseArgsConfig['options'] = {}, maxPositionals = 0) {
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals: true, tokens: true });
    if (parsed.positionals.length > maxPositionals) {
      throw new UsageError(`Unexpected argument: ${parsed.positionals[maxPositionals]}`);
    }
    const given = parsed.tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
    const repeated = given.find((name, index) => given.indexOf(name) !== index);
    if (repeated) throw new UsageError(`--${repeated} is given more than once`);
    return parsed;
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError((error as Error).message);
  }
}

/**
 * Connects to DATABASE_URL, or to the development database: the running `npm start` server
 * if there is one, else the CLI starts it for the duration of the command and migrates it.
 */
async function withDatabase(work: (keys: ApiKeyCommands) => Promise<void>): Promise<void> {
  // Loaded only when needed: production images have no embedded PostgreSQL.
  const development =
    process.env.DATABASE_URL || process.env.DATABASE_URL_FILE
      ? undefined
      : await (
          await import('../dev/embedded-database.js')
        ).useDevelopmentDatabaseUnlessConfigured();
  const dataSource = standaloneDataSource();
  try {
    await dataSource.initialize();
    if (development) await dataSource.runMigrations({ transaction: 'each' });
    await withMigrationHint(() => work(new ApiKeyCommands(dataSource)));
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await development?.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  if (error instanceof UsageError) console.error(`\n${USAGE}`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
