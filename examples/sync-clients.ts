import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ApiClient, createApiClient } from '../clients/typescript/src/client';
import { ClientFilter, clientPages } from '../clients/typescript/src/iterate-clients';
import { RetryOptions } from '../clients/typescript/src/retrying-fetch';

/**
 * Full sync: mirrors every client matching a filter into a JSON-lines file, one client per
 * line, in the API's order. After each page the file is flushed and `<out>.state.json`
 * records the cursor and the file's length, so an interrupted run resumes where it stopped:
 * the file is cut back to the recorded length (dropping a page written after the last
 * record) and the walk continues from the recorded cursor. Every row lands exactly once.
 */
export interface SyncOptions {
  api: ApiClient;
  out: string;
  filter?: ClientFilter;
  limit?: number;
  /** Ignore a saved state and start over. */
  restart?: boolean;
  signal?: AbortSignal;
  onPage?: (progress: SyncState) => void;
}

export interface SyncState {
  filter: ClientFilter;
  /** Where to continue; null before the first page and after the last. */
  cursor: string | null;
  /** Rows and bytes in the output file that are complete. */
  rows: number;
  bytes: number;
  done: boolean;
}

export async function syncClients(options: SyncOptions): Promise<SyncState> {
  const { api, out, filter = {}, limit = 1000, signal, onPage } = options;
  const stateFile = `${out}.state.json`;
  const saved = options.restart ? undefined : await readState(stateFile);
  if (saved && filterKey(saved.filter) !== filterKey(filter)) {
    throw new Error(
      `${stateFile} is for the filter ${JSON.stringify(saved.filter)}: use --restart`,
    );
  }
  // A finished mirror is not continued: the next run takes a fresh one.
  let state: SyncState =
    saved && !saved.done ? saved : { filter, cursor: null, rows: 0, bytes: 0, done: false };
  const file = await open(out, 'a+');
  try {
    await file.truncate(state.bytes);
    for await (const page of clientPages(api, filter, { limit, cursor: state.cursor, signal })) {
      const lines = page.clients.map((client) => `${JSON.stringify(client)}\n`).join('');
      const { bytesWritten } = await file.write(lines, state.bytes);
      await file.datasync();
      state = {
        ...state,
        cursor: page.nextCursor,
        rows: state.rows + page.clients.length,
        bytes: state.bytes + bytesWritten,
        done: page.nextCursor === null,
      };
      await writeState(stateFile, state);
      onPage?.(state);
      signal?.throwIfAborted();
    }
  } finally {
    await file.close();
  }
  return state;
}

// The same filter whatever the order of its keys, and with or without undefined ones.
const filterKey = (filter: ClientFilter) =>
  JSON.stringify(
    Object.entries(filter)
      .filter(([, value]) => value !== undefined)
      .sort(),
  );

async function readState(stateFile: string): Promise<SyncState | undefined> {
  try {
    return JSON.parse(await readFile(stateFile, 'utf8')) as SyncState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// Written aside and renamed into place, so a crash leaves the old state or the new, never half.
async function writeState(stateFile: string, state: SyncState): Promise<void> {
  await writeFile(`${stateFile}.tmp`, `${JSON.stringify(state)}\n`);
  await rename(`${stateFile}.tmp`, stateFile);
}

const USAGE = `Usage: npm run example:sync -- [options]
  --base-url URL      the API (default: $API_BASE_URL or http://localhost:3000)
  --api-key KEY       default: $API_KEY
  --out FILE          JSON-lines output (default: clients.jsonl); state in FILE.state.json
  --status new|connected   --link-id ID   --is-deleted true|false   filters
  --limit N           rows per request, 1..1000 (default 1000)
  --restart           ignore a saved state and start over`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string', default: process.env.API_BASE_URL ?? 'http://localhost:3000' },
      'api-key': { type: 'string', default: process.env.API_KEY },
      out: { type: 'string', default: 'clients.jsonl' },
      status: { type: 'string' },
      'link-id': { type: 'string' },
      'is-deleted': { type: 'string' },
      limit: { type: 'string', default: '1000' },
      restart: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values['api-key']) {
    console.error(values.help ? USAGE : `An API key is needed.\n${USAGE}`);
    process.exit(values.help ? 0 : 2);
  }
  const filter: ClientFilter = {
    ...(values.status !== undefined && { status: values.status as ClientFilter['status'] }),
    ...(values['link-id'] !== undefined && { linkId: values['link-id'] }),
    ...(values['is-deleted'] !== undefined && { isDeleted: parseBoolean(values['is-deleted']) }),
  };
  const retry: RetryOptions = {
    onRetry: ({ status, error, delayMs }) =>
      console.error(`  ${status ?? String(error)}: retrying in ${Math.round(delayMs)} ms`),
  };
  const api = createApiClient({ baseUrl: values['base-url'], apiKey: values['api-key'], retry });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  const state = await syncClients({
    api,
    out: values.out,
    filter,
    limit: Number(values.limit),
    restart: values.restart,
    signal: controller.signal,
    onPage: ({ rows }) => console.error(`  ${rows} clients`),
  });
  console.log(`${state.rows} clients in ${values.out}`);
}

function parseBoolean(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new Error('--is-deleted must be true or false');
  return value === 'true';
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`sync failed (run again to resume): ${String(error)}`);
    process.exit(1);
  });
}
