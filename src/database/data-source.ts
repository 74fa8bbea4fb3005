import { DataSourceOptions } from 'typeorm';
import { CreateLinksAndClients1767225600000 } from './migrations/1767225600000-CreateLinksAndClients';
import { CreateApiKeys1767312000000 } from './migrations/1767312000000-CreateApiKeys';
import { CoverListQueries1767398400000 } from './migrations/1767398400000-CoverListQueries';
import { StampChangesForFeeds1767484800000 } from './migrations/1767484800000-StampChangesForFeeds';
import { CoverListPages1767571200000 } from './migrations/1767571200000-CoverListPages';
import { ReadWritersPrivately1767657600000 } from './migrations/1767657600000-ReadWritersPrivately';
import { WaitForTableWritersOnly1767744000000 } from './migrations/1767744000000-WaitForTableWritersOnly';
import { WaitForOwnTableWriters1767830400000 } from './migrations/1767830400000-WaitForOwnTableWriters';
import { NotifyFeedChanges1767916800000 } from './migrations/1767916800000-NotifyFeedChanges';
import { StopNotifyingFeedChanges1768003200000 } from './migrations/1768003200000-StopNotifyingFeedChanges';
import { ScopeApiKeys1768089600000 } from './migrations/1768089600000-ScopeApiKeys';
import { withLibpqSslMode } from './ssl-mode';

export interface DatabaseSettings {
  url: string;
  timeoutMs: number;
}

/**
 * What every pooled connection is opened with, the primary's and the replicas'
 * (DatabasePools): DATABASE_TIMEOUT_MS (docs/operations.md, Configuration) bounds both the wait
 * for a pooled connection and the statement; the server-side statement_timeout cancels the
 * query, not only our wait. No query_timeout: the API's queries go through DatabaseReader,
 * which gives up a connection that stops answering without a timer per query.
 */
export const poolSettings = (timeoutMs: number) => ({
  connectionTimeoutMillis: timeoutMs,
  statement_timeout: timeoutMs,
  application_name: 'links-clients-api',
});

/**
 * One definition of the connection, shared by the app and the command-line tools. Entities are
 * not listed here: each resource module registers its own (TypeOrmModule.forFeature), and the
 * data sources built outside the app add them (standalone-data-source.ts).
 */
export function dataSourceOptions({ url, timeoutMs }: DatabaseSettings): DataSourceOptions {
  return {
    type: 'postgres',
    url: withLibpqSslMode(url, 'DATABASE_URL'),
    migrations: [
      CreateLinksAndClients1767225600000,
      CreateApiKeys1767312000000,
      CoverListQueries1767398400000,
      StampChangesForFeeds1767484800000,
      CoverListPages1767571200000,
      ReadWritersPrivately1767657600000,
      WaitForTableWritersOnly1767744000000,
      WaitForOwnTableWriters1767830400000,
      NotifyFeedChanges1767916800000,
      StopNotifyingFeedChanges1768003200000,
      ScopeApiKeys1768089600000,
    ],
    // Each migration in its own transaction, or none where it builds indexes concurrently.
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built in; the API's role may not create extensions, nor need to.
    installExtensions: false,
    connectTimeoutMS: timeoutMs,
    extra: poolSettings(timeoutMs),
  };
}
