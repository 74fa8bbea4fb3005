import { randomBytes } from 'node:crypto';

/**
 * The request path's end-to-end specs as one Jest file, for the mutation run only (`npm test`
 * does not match this name). Jest gives every test file a fresh module registry, so each spec
 * file loads NestJS, TypeORM and the app again — about three seconds, most of a mutant's run
 * when a spec file is the unit. Here they load once per mutant. Each spec keeps what its own
 * file gives it: a database of its own (suite-env.ts), its own environment, mocks restored.
 */
// Literal requires: StrykerJS asks Jest for the tests related to each mutated file, and Jest
// follows only requires it can read.
/* eslint-disable @typescript-eslint/no-require-imports */
const REQUEST_PATH_SPECS: Record<string, () => unknown> = {
  smoke: () => require('../e2e/smoke.e2e-spec'),
  clients: () => require('../e2e/clients.e2e-spec'),
  links: () => require('../e2e/links.e2e-spec'),
  changes: () => require('../e2e/changes.e2e-spec'),
  auth: () => require('../e2e/auth.e2e-spec'),
  'api-keys': () => require('../e2e/api-keys.e2e-spec'),
  errors: () => require('../e2e/errors.e2e-spec'),
  'query-validation': () => require('../e2e/query-validation.e2e-spec'),
  'cursor-paging': () => require('../e2e/cursor-paging.e2e-spec'),
  'cursor-secret': () => require('../e2e/cursor-secret.e2e-spec'),
  'http-caching': () => require('../e2e/http-caching.e2e-spec'),
  hardening: () => require('../e2e/hardening.e2e-spec'),
  cors: () => require('../e2e/cors.e2e-spec'),
  'count-cache': () => require('../e2e/count-cache.e2e-spec'),
  'links-stream-failure': () => require('../e2e/links-stream-failure.e2e-spec'),
  'request-ordering': () => require('../e2e/request-ordering.e2e-spec'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

for (const [spec, load] of Object.entries(REQUEST_PATH_SPECS)) {
  describe(spec, () => {
    let environment: NodeJS.ProcessEnv;
    beforeAll(() => {
      environment = { ...process.env };
      const url = new URL(process.env.DATABASE_URL as string);
      url.pathname = `/test_${randomBytes(6).toString('hex')}`;
      process.env.DATABASE_URL = url.toString();
    });
    load();
    // Declared after the spec's own hooks, so it runs after them (its app closed, its database dropped).
    afterAll(() => {
      jest.restoreAllMocks();
      for (const name of Object.keys(process.env)) delete process.env[name];
      Object.assign(process.env, environment);
    });
  });
}
