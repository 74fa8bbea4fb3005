// Mutation testing of the request path: `npm run test:mutation` (see docs/development.md).
// Every mutant boots the app again in Jest, so the run is kept small enough for two cores:
// per-test coverage (a mutant runs only the tests that reach it), the fast specs that exercise
// these folders, and a shared PostgreSQL server instead of one embedded server per Jest run.
import { createRequire } from 'node:module';

if (!process.env.DATABASE_URL) {
  throw new Error(
    'Set DATABASE_URL to a PostgreSQL server for the mutation run, e.g. ' +
      'DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run test:mutation',
  );
}

const { REQUEST_PATH: requestPath } = createRequire(import.meta.url)(
  './test/mutation/jest.config.js',
);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'test/mutation/jest.config.js' },
  mutate: [
    ...requestPath.map((dir) => `src/${dir}/**/*.ts`),
    '!src/**/*.spec.ts',
    // Module wiring and OpenAPI decorators only: no request-time logic to mutate.
    '!src/**/*.module.ts',
    '!src/**/*.dto.ts',
    '!src/**/dto/**',
    '!src/**/*.entity.ts',
    '!src/**/*.decorator.ts',
    // The OpenAPI document, built once at start (checked by openapi:check and the contract hook).
    '!src/openapi/*.ts',
    // The key CLI's commands, not the request path.
    '!src/api-keys/api-key-commands.ts',
  ],
  coverageAnalysis: 'perTest',
  // Code that runs when a module loads (decorators, constants) would need every test per mutant.
  ignoreStatic: true,
  concurrency: 2,
  // The first run of every selected spec, with coverage, on a shared machine.
  dryRunTimeoutMinutes: 20,
  timeoutMS: 20000,
  timeoutFactor: 2,
  // Reruns test only the mutants whose code or tests changed since the last run.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 80 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
