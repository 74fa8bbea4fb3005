import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, configureApp } from '../../src/app.setup';
import { createSuiteDatabase, dropSuiteDatabase } from './database';

export interface TestApp {
  app: NestExpressApplication;
  /** A DataSource of the test's own, for fixtures. */
  dataSource: DataSource;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Where the app (not the fixtures) reaches the suite's database, e.g. through a proxy. */
  appDatabaseUrl?: string;
  override?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
}

/**
 * Boots the real AppModule, wired by the same configureApp as main.ts, on this suite's own
 * migrated database (without start-api.ts's process-wide settings: the garbage-collection
 * flags and the JSON logger of the start).
 */
export async function createTestApp({
  env = {},
  appDatabaseUrl,
  override = (b) => b,
}: TestAppOptions = {}): Promise<TestApp> {
  Object.assign(process.env, env);
  const dataSource = await createSuiteDatabase();
  if (appDatabaseUrl) process.env.DATABASE_URL = appDatabaseUrl;
  const app = await createPeerApp(override);
  return {
    app,
    dataSource,
    close: async () => {
      await app.close();
      await dropSuiteDatabase(dataSource);
    },
  };
}

/**
 * Another instance of the app on the database and environment createTestApp set up: a second
 * pod of the same deployment. The caller closes it.
 */
export async function createPeerApp(
  override: TestAppOptions['override'] = (b) => b,
): Promise<NestExpressApplication> {
  const moduleRef = await override(
    Test.createTestingModule({ imports: [await AppModule.forRoot()] }),
  ).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
  configureApp(app);
  await app.init();
  return app;
}

export const AUTH = { Authorization: 'Bearer test-key-primary' };
