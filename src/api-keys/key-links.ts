import { Injectable } from '@nestjs/common';
import { KeysEnv } from '../config/keys.env';
import { DatabaseReader } from '../database/database-reader';

interface Read {
  links: Promise<ReadonlySet<string>>;
  at: number;
}

/**
 * The links of a link-scoped key, in memory, where a query cannot read them: which changes
 * wake its long polls. Read from the primary, kept KEY_CACHE_TTL_MS (as the keys are), so a
 * change of a key's links reaches its polls within it; its queries read them afresh.
 */
@Injectable()
export class KeyLinks {
  private readonly reads = new Map<string, Read>();
  private readonly ttlMs: number;

  constructor(
    private readonly database: DatabaseReader,
    { KEY_CACHE_TTL_MS }: KeysEnv,
  ) {
    this.ttlMs = KEY_CACHE_TTL_MS;
  }

  of(keyId: string): Promise<ReadonlySet<string>> {
    const kept = this.reads.get(keyId);
    if (kept && Date.now() - kept.at < this.ttlMs) return kept.links;
    const read: Read = { links: this.read(keyId), at: Date.now() };
    this.reads.set(keyId, read);
    read.links.catch(() => this.reads.get(keyId) === read && this.reads.delete(keyId));
    return read.links;
  }

  private async read(keyId: string): Promise<ReadonlySet<string>> {
    const rows = await this.database.query<{ link_id: string }[]>(
      'SELECT link_id FROM api_key_links WHERE key_id = $1::uuid',
      [keyId],
      { primary: true, prepared: true },
    );
    return new Set(rows.map((row) => row.link_id));
  }
}
