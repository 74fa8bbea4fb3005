import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiClient, Client, createApiClient } from '@links-clients/client';
import { changePages, followChanges } from '@links-clients/client/change-feed';
import { RetryOptions } from '@links-clients/client/retrying-fetch';

/**
 * Copy, then follow: mirrors the clients (all, or one link's) through the change feed into a
 * JSON-lines file. The first line names the filter; each next line is one page,
 * `{"cursor":…,"rows":[…]}`, appended and flushed before the next request. A page's rows and
 * the cursor after them are one line, so a crash can never leave a cursor ahead of its rows:
 * a torn last line is dropped on the next start, which resumes from the last whole line's
 * cursor. Replaying the lines in order, upserting by `id`, gives the mirror; the file is
 * rewritten compacted (one row per id) aside and renamed into place every `compactEvery`
 * pages and when caught up, so it stays about the size of the table.
 */
export interface SyncOptions {
  api: ApiClient;
  out: string;
  linkId?: string;
  limit?: number;
  /** Stop when caught up instead of following. */
  once?: boolean;
  /** Follow: long polls of this many seconds once caught up (default 25); 0: short polls. */
  waitSeconds?: number;
  /** Follow with short polls: the wait after a caught-up poll, doubling while idle, up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
  /** Follow: stop after this many empty polls in a row (default: until aborted). */
  maxIdlePolls?: number;
  /** Ignore a saved mirror and copy again. */
  restart?: boolean;
  compactEvery?: number;
  signal?: AbortSignal;
  onPage?: (mirror: Mirror) => void;
}

export interface Mirror {
  linkId: string | null;
  /** Where to continue; null before the first page. */
  cursor: string | null;
  rows: Map<string, Client>;
}

interface Header {
  feed: 'clients';
  linkId: string | null;
}
interface PageLine {
  cursor: string;
  rows: Client[];
}

export async function syncClients(options: SyncOptions): Promise<Mirror> {
  const { api, out, limit = 1000, compactEvery = 100, signal, onPage } = options;
  const linkId = options.linkId ?? null;
  const saved = options.restart ? undefined : await loadMirror(out);
  if (saved && saved.linkId !== linkId) {
    throw new Error(`${out} mirrors linkId ${JSON.stringify(saved.linkId)}: use --restart`);
  }
  const mirror = saved ?? { linkId, cursor: null, rows: new Map() };
  // Starts from a compacted file: drops a torn line, and keeps the appends below whole.
  await writeCompacted(out, mirror);
  const feedOptions = {
    cursor: mirror.cursor,
    ...(linkId !== null && { linkId }),
    limit,
    signal,
  };
  const pages = options.once
    ? changePages(api, 'clients', feedOptions)
    : followChanges(api, 'clients', {
        ...feedOptions,
        waitSeconds: options.waitSeconds,
        minDelayMs: options.pollMs,
        maxDelayMs: options.maxPollMs,
        maxIdlePolls: options.maxIdlePolls,
      });
  let appended = 0;
  let log = await open(out, 'a');
  try {
    for await (const page of pages) {
      if (page.rows.length === 0 && page.nextCursor === mirror.cursor) continue;
      const line: PageLine = { cursor: page.nextCursor, rows: page.rows };
      await log.write(`${JSON.stringify(line)}\n`);
      await log.datasync();
      apply(mirror, line);
      onPage?.(mirror);
      if (++appended >= compactEvery || (!page.hasMore && appended > 1)) {
        await writeCompacted(out, mirror);
        // The compacted file replaced the one open for appending: append to the new one.
        await log.close();
        log = await open(out, 'a');
        appended = 0;
      }
    }
  } finally {
    await log.close();
  }
  return mirror;
}

function apply(mirror: Mirror, page: PageLine): void {
  for (const row of page.rows) mirror.rows.set(row.id, row);
  mirror.cursor = page.cursor;
}

/** The mirror in `out`, replayed line by line; undefined when there is none. */
export async function loadMirror(out: string): Promise<Mirror | undefined> {
  let text: string;
  try {
    text = await readFile(out, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Only lines ended by a newline were written whole: what follows the last one (empty, or a
  // torn line) is dropped.
  const lines = text.split('\n');
  lines.pop();
  if (lines.length === 0) return undefined;
  const header = JSON.parse(lines[0]) as Header;
  const mirror: Mirror = { linkId: header.linkId, cursor: null, rows: new Map() };
  for (const line of lines.slice(1)) apply(mirror, JSON.parse(line) as PageLine);
  return mirror;
}

/**
 * Rewrites `out` as the header and the rows in pages of 1000, each line with the mirror's
 * cursor: written aside, flushed and renamed into place, so a crash leaves the old file or the
 * new one, never a mix.
 */
async function writeCompacted(out: string, mirror: Mirror): Promise<void> {
  const header: Header = { feed: 'clients', linkId: mirror.linkId };
  const rows = [...mirror.rows.values()];
  const file = await open(`${out}.tmp`, 'w');
  try {
    await file.write(`${JSON.stringify(header)}\n`);
    for (let i = 0; i < rows.length; i += 1000) {
      const line: PageLine = { cursor: mirror.cursor ?? '', rows: rows.slice(i, i + 1000) };
      await file.write(`${JSON.stringify(line)}\n`);
    }
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(`${out}.tmp`, out);
  // The rename itself is durable once the directory is flushed.
  const directory = await open(dirname(out), 'r');
  await directory.sync().finally(() => directory.close());
}

const USAGE = `Usage: npm run example:sync -- [options]
  --base-url URL      the API (default: $API_BASE_URL or http://localhost:3000)
  --api-key KEY       default: $API_KEY
  --out FILE          the mirror, JSON lines (default: clients.jsonl)
  --link-id ID        mirror only this link's clients
  --limit N           rows per request, 1..1000 (default 1000)
  --once              stop when caught up (default: keep following)
  --wait N            follow by long polls of N seconds, 1..25 (default 25); 0: short polls
  --poll-ms N         short polls: wait after a caught-up poll (default 2000), doubling while idle
  --max-poll-ms N     longest wait between polls (default 30000)
  --max-idle-polls N  stop after N empty polls in a row (default: never)
  --restart           ignore the saved mirror and copy again`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string', default: process.env.API_BASE_URL ?? 'http://localhost:3000' },
      'api-key': { type: 'string', default: process.env.API_KEY },
      out: { type: 'string', default: 'clients.jsonl' },
      'link-id': { type: 'string' },
      limit: { type: 'string', default: '1000' },
      once: { type: 'boolean', default: false },
      wait: { type: 'string', default: '25' },
      'poll-ms': { type: 'string', default: '2000' },
      'max-poll-ms': { type: 'string', default: '30000' },
      'max-idle-polls': { type: 'string' },
      restart: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values['api-key']) {
    console.error(values.help ? USAGE : `An API key is needed.\n${USAGE}`);
    process.exit(values.help ? 0 : 2);
  }
  const retry: RetryOptions = {
    onRetry: ({ status, error, delayMs }) =>
      console.error(`  ${status ?? String(error)}: retrying in ${Math.round(delayMs)} ms`),
  };
  const api = createApiClient({ baseUrl: values['base-url'], apiKey: values['api-key'], retry });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  process.once('SIGTERM', () => controller.abort(new Error('terminated')));
  const mirror = await syncClients({
    api,
    out: values.out,
    linkId: values['link-id'],
    limit: count('--limit', values.limit),
    once: values.once,
    waitSeconds: count('--wait', values.wait),
    pollMs: count('--poll-ms', values['poll-ms']),
    maxPollMs: count('--max-poll-ms', values['max-poll-ms']),
    maxIdlePolls:
      values['max-idle-polls'] === undefined
        ? undefined
        : count('--max-idle-polls', values['max-idle-polls']),
    restart: values.restart,
    signal: controller.signal,
    onPage: ({ rows }) => console.error(`  ${rows.size} clients`),
  });
  console.log(`${mirror.rows.size} clients in ${values.out}`);
}

function count(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number`);
  return Number(value);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`sync stopped (run again to resume): ${String(error)}`);
    process.exit(1);
  });
}
