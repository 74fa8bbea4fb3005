import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';

const WRITE_INTERVAL_MS = 60_000;
const FLUSH_DELAY_MS = 1_000;

/**
 * Records `last_used_at` off the request path: a use is noted in memory and written in one
 * batched UPDATE a second later, at most once a minute per key and process.
 */
@Injectable()
export class LastUsedRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(LastUsedRecorder.name);
  private readonly lastNoted = new Map<string, number>();
  private readonly pending = new Map<string, Date>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly database: DatabaseReader) {}

  note(keyId: string): void {
    const now = Date.now();
    const last = this.lastNoted.get(keyId);
    if (last !== undefined && now - last < WRITE_INTERVAL_MS) return;
    this.lastNoted.set(keyId, now);
    this.pending.set(keyId, new Date(now));
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.timer);
    await this.flush();
  }

  private flush(): Promise<void> {
    this.timer = undefined;
    const batch = [...this.pending];
    this.pending.clear();
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  private async write(batch: [string, Date][]): Promise<void> {
    try {
      await this.database.query(
        `UPDATE api_keys AS k SET last_used_at = u.used_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
         WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
        [batch.map(([id]) => id), batch.map(([, usedAt]) => usedAt)],
        { primary: true },
      );
    } catch (error) {
      this.logger.warn(`Could not record the last use of ${batch.length} key(s): ${error}`);
    }
  }
}
