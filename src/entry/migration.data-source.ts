import { DataSource } from 'typeorm';
import { validateDatabaseEnv } from '../config/env';
import { dataSourceOptions } from '../database/data-source';
import { ENTITIES } from '../entities';

// Entry point for the TypeORM CLI (`npm run migration:run`); the app never imports this file.
const env = validateDatabaseEnv(process.env);

export default new DataSource({
  ...dataSourceOptions({ url: env.DATABASE_URL, timeoutMs: env.DATABASE_TIMEOUT_MS }),
  entities: ENTITIES,
});
