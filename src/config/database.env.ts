import { Expose } from 'class-transformer';
import { IsDefined } from 'class-validator';
import { CommaList, ExactBoolean, ServiceUrl, WholeMilliseconds } from './env-decorators';

const POSTGRES = ['postgres:', 'postgresql:'];
const ENCODED = 'with @ : / ? # % in a user or password percent-encoded';

/** The database: all the command-line tools need (docs/operations.md, Configuration). */
export class DatabaseEnv {
  @Expose()
  @IsDefined({ message: 'DATABASE_URL is required' })
  @ServiceUrl(POSTGRES, `DATABASE_URL must be a postgres:// URL, ${ENCODED}`, { noHost: true })
  DATABASE_URL!: string;

  // Bounds the wait for a pooled connection and the statement together; past it, a 503.
  @WholeMilliseconds(1)
  DATABASE_TIMEOUT_MS = 5000;

  // When set, every read goes to one of these (streaming) replicas.
  @CommaList()
  @ServiceUrl(
    POSTGRES,
    `DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs, ${ENCODED}`,
    { each: true, noHost: true },
  )
  DATABASE_REPLICA_URLS: string[] = [];

  // false behind a transaction-mode pooler that cannot keep prepared statements (PgBouncer
  // before 1.21): every query then runs unnamed.
  @ExactBoolean()
  DATABASE_PREPARED_STATEMENTS = true;
}
