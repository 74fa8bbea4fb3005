import { Injectable } from '@nestjs/common';
import { KeysEnv } from '../config/keys.env';
import { DatabaseReader } from '../database/database-reader';
import { hashApiKey, isManagedKey } from './api-key-format';
import { Operation } from './key-scope';

export interface ActiveApiKey {
  id: string;
  expiresAt: number | null;
  /** The operations it may use; undefined: every one. */
  operations?: readonly Operation[];
  /** Whether it sees only the rows of its links (api_key_links). */
  isLinkScoped: boolean;
  /** How many links it held when the keys were read (0 unless link-scoped). */
  linkCount: number;
}

// An unknown key may be one created a moment ago: it re-reads the snapshot, but all unknown
// keys together cause at most one read per this interval.
const MISS_REREAD_INTERVAL_MS = 1000;

/**
 * Answers "is this an active database key?" from an in-memory snapshot of every active key's
 * hash, re-read when older than KEY_CACHE_TTL_MS (so a revocation takes effect within it). A
 * cache per looked-up key would not stop a flood of distinct random keys; with a snapshot,
 * misses cost at most one read per second in total. Sized for up to tens of thousands of keys.
 */
@Injectable()
export class DatabaseApiKeys {
  private snapshot = new Map<string, ActiveApiKey>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading?: Promise<Map<string, ActiveApiKey>>;
  private readonly ttlMs: number;

  constructor(
    private readonly database: DatabaseReader,
    { KEY_CACHE_TTL_MS }: KeysEnv,
  ) {
    this.ttlMs = KEY_CACHE_TTL_MS;
  }

  async find(candidate: string): Promise<ActiveApiKey | undefined> {
    if (!isManagedKey(candidate)) return undefined;
    const hash = hashApiKey(candidate);
    let found = (await this.activeKeys(this.ttlMs)).get(hash);
    found ??= (await this.activeKeys(Math.min(this.ttlMs, MISS_REREAD_INTERVAL_MS))).get(hash);
    if (!found || (found.expiresAt !== null && found.expiresAt <= Date.now())) return undefined;
    return found;
  }

  /** The number of active keys, read now (used at boot). */
  async count(): Promise<number> {
    return (await this.activeKeys(0)).size;
  }

  private activeKeys(maxAgeMs: number): Promise<Map<string, ActiveApiKey>> {
    if (Date.now() - this.readAt < maxAgeMs) return Promise.resolve(this.snapshot);
    // One read at a time: concurrent requests share it.
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<Map<string, ActiveApiKey>> {
    const startedAt = Date.now();
    // From the primary: a key created a moment ago works at once, whatever a replica's lag.
    const rows = await this.database.query<
      {
        id: string;
        hash: string;
        expires_at: Date | null;
        operations: Operation[] | null;
        is_link_scoped: boolean;
        link_count: number;
      }[]
    >(
      `SELECT id, encode(key_hash, 'hex') AS hash, expires_at, operations, is_link_scoped,
              CASE WHEN is_link_scoped
                   THEN (SELECT count(*) FROM api_key_links WHERE key_id = k.id)::int ELSE 0
              END AS link_count
       FROM api_keys AS k WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
      [],
      { primary: true },
    );
    this.snapshot = new Map(
      rows.map((row) => [
        row.hash,
        {
          id: row.id,
          expiresAt: row.expires_at?.getTime() ?? null,
          operations: row.operations ?? undefined,
          isLinkScoped: row.is_link_scoped,
          linkCount: row.link_count,
        },
      ]),
    );
    // Aged from when the read began, so no answer rests on data older than the TTL.
    this.readAt = startedAt;
    return this.snapshot;
  }
}
