import { DataSource } from 'typeorm';
import { ApiKey } from './api-keys/api-key.entity';
import { ApiKeyLink } from './api-keys/api-key-link.entity';
import { Client } from './clients/client.entity';
import { validateDatabaseEnv } from './config/env';
import { DatabaseSettings, dataSourceOptions } from './database/data-source';
import { Link } from './links/link.entity';

/**
 * A data source outside the app (migration CLI, key CLI, dev start, test fixtures): the app's
 * connection settings, by default from the environment, with every entity (in the app, each
 * resource module registers its own).
 */
export function standaloneDataSource(settings?: DatabaseSettings): DataSource {
  const { url, timeoutMs } = settings ?? databaseSettingsFromEnv();
  return new DataSource({
    ...dataSourceOptions({ url, timeoutMs }),
    entities: [Link, Client, ApiKey, ApiKeyLink],
  });
}

function databaseSettingsFromEnv(): DatabaseSettings {
  const env = validateDatabaseEnv(process.env);
  return { url: env.DATABASE_URL, timeoutMs: env.DATABASE_TIMEOUT_MS };
}
