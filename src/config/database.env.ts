import { Expose } from 'class-transformer';
import { IsDefined, ValidateBy } from 'class-validator';
import { sslModeProblem } from './database-tls';
import { CommaList, ExactBoolean, ServiceUrl, WholeMilliseconds } from './env-decorators';

const POSTGRES = ['postgres:', 'postgresql:'];
const ENCODED = 'with @ : / ? # % in a user or password percent-encoded';

/** TLS settings pg can use, checked with every other variable rather than when connecting. */
const UsableTls = (variable: string, each = false) =>
  ValidateBy(
    {
      name: 'usableTls',
      validator: {
        validate: (url: unknown) => typeof url !== 'string' || !sslModeProblem(url),
        defaultMessage: (args) =>
          `${variable}: ${[args?.value].flat().map(String).map(sslModeProblem).find(Boolean)}`,
      },
    },
    { each },
  );

/** The database: all the command-line tools need (docs/operations.md, Configuration). */
export class DatabaseEnv {
  @Expose()
  @IsDefined({ message: 'DATABASE_URL is required' })
  @ServiceUrl(POSTGRES, `DATABASE_URL must be a postgres:// URL, ${ENCODED}`, { noHost: true })
  @UsableTls('DATABASE_URL')
  DATABASE_URL!: string;

  // Bounds the wait for a pooled connection and the statement together; past it, a 503.
  @WholeMilliseconds(1)
  DATABASE_TIMEOUT_MS = 5000;

  // When set, lists and gets read from one of these (streaming) replicas; the change feeds
  // and API key lookups stay on the primary.
  @CommaList()
  @ServiceUrl(
    POSTGRES,
    `DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs, ${ENCODED}`,
    { each: true, noHost: true },
  )
  @UsableTls('DATABASE_REPLICA_URLS', true)
  DATABASE_REPLICA_URLS: string[] = [];

  // false behind a transaction-mode pooler that cannot keep prepared statements (PgBouncer
  // before 1.21): every query then runs unnamed.
  @ExactBoolean()
  DATABASE_PREPARED_STATEMENTS = true;

  // The production start refuses a database on another host without sslmode=verify-full
  // unless this says an unchecked (or unencrypted) connection is meant.
  @ExactBoolean()
  DATABASE_ALLOW_UNVERIFIED = false;
}
