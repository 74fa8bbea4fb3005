import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import {
  DEVELOPMENT_DATA_DIR,
  useDevelopmentDatabaseUnlessConfigured,
} from '../dev/embedded-database';
import { seedDemoData } from '../dev/seed-demo-data';
import { DEMO_KEY_PREFIX } from '../config/weak-secrets';
import { shutDownGracefully } from '../health/graceful-shutdown';
import { standaloneDataSource } from '../standalone-data-source';
import { startApi } from '../start-api';

/**
 * `npm start`: zero-configuration development run (docs/development.md). Without DATABASE_URL
 * it runs an embedded PostgreSQL under .data/; either way it migrates, seeds the demo set once
 * and serves the API with a demo key.
 */
async function startDevelopment(): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.log('DATABASE_URL is not set: starting an embedded PostgreSQL in .data/postgres …');
  }
  const embedded = await useDevelopmentDatabaseUnlessConfigured();
  process.env.API_KEYS ||= demoApiKey();
  process.env.CURSOR_SECRET ||= keptSecret('cursor-secret', () => randomBytes(32).toString('hex'));
  // People read the development logs; no load balancer needs a drain on Ctrl-C.
  process.env.LOG_FORMAT ||= 'pretty';
  process.env.SHUTDOWN_DRAIN_DELAY_MS ||= '0';
  await prepareDatabase();
  const { app, url } = await startApi();
  shutDownGracefully(app, async () => embedded?.stop());
  const key = process.env.API_KEYS.split(',')[0].trim();
  console.log(`
Links and Clients API (development) listening on ${url}
  API docs:  ${url}/docs
  Demo key:  ${key}
  Try:       curl -H 'Authorization: Bearer ${key}' '${url}/api/data/clients?limit=2&status=connected'
Press Ctrl-C to stop${embedded ? ' (the embedded PostgreSQL stops with it)' : ''}.`);
}

async function prepareDatabase(): Promise<void> {
  const dataSource = standaloneDataSource();
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
    if (await seedDemoData(dataSource)) console.log('Seeded the demo data set.');
  } finally {
    await dataSource.destroy();
  }
}

// A random key per checkout, kept with the development data so it survives restarts.
const demoApiKey = () =>
  keptSecret('demo-api-key', () => `${DEMO_KEY_PREFIX}${randomBytes(24).toString('base64url')}`);

/** A secret made once per checkout under .data/ (owner-only), so restarts keep it. */
function keptSecret(name: string, make: () => string): string {
  mkdirSync(DEVELOPMENT_DATA_DIR, { recursive: true });
  const file = `${DEVELOPMENT_DATA_DIR}/${name}`;
  if (!existsSync(file)) writeFileSync(file, `${make()}\n`, { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

startDevelopment().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
