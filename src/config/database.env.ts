import { Expose } from 'class-transformer';
import { IsDefined, Matches } from 'class-validator';
import { CommaList, ExactBoolean, WholeMilliseconds } from './env-decorators';

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

/** The database: all the command-line tools need (docs/operations.md, Configuration). */
export class DatabaseEnv {
  @Expose()
  @IsDefined({ message: 'DATABASE_URL is required' })
  @Matches(POSTGRES_URL, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL!: string;

  // Bounds the wait for a pooled connection and the statement together; past it, a 503.
  @WholeMilliseconds(1)
  DATABASE_TIMEOUT_MS = 5000;

  // When set, every read goes to one of these (streaming) replicas.
  @CommaList()
  @Matches(POSTGRES_URL, {
    each: true,
    message: 'DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs',
  })
  DATABASE_REPLICA_URLS: string[] = [];

  // false behind a transaction-mode pooler that cannot keep prepared statements (PgBouncer
  // before 1.21): every query then runs unnamed.
  @ExactBoolean()
  DATABASE_PREPARED_STATEMENTS = true;
}
