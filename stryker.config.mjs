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

// src/common became src/http; both are listed so the config fits either layout. The key checks
// the guard calls live in src/api-keys.
const requestPath = ['clients', 'links', 'changes', 'auth', 'api-keys', 'common', 'http'];
const unitSpecs = requestPath.map((dir) => `<rootDir>/src/${dir}/**/*.spec.ts`);
// The fast end-to-end specs over these folders; the operational ones (processes, images,
// proxies, query plans, browsers, fuzzing) add minutes per mutant and kill nothing more here.
const e2eSpecs = [
  'smoke',
  'clients',
  'links',
  'changes',
  'auth',
  'api-keys',
  'errors',
  'query-validation',
  'cursor-paging',
  'cursor-secret',
  'http-caching',
  'hardening',
  'cors',
  'count-cache',
  'links-stream-failure',
  'request-ordering',
].map((name) => `<rootDir>/test/e2e/${name}.e2e-spec.ts`);

// Stryker's per-test coverage wraps the top-level test environment and setup files, so it gets
// one flat Jest config: the run-wide options plus the settings every project shares.
const { projects, ...runOptions } = createRequire(import.meta.url)('./jest.config.js');
const e2e = projects.find((project) => project.displayName === 'e2e');
const shared = Object.fromEntries(
  [
    'testEnvironment',
    'transform',
    'transformIgnorePatterns',
    'setupFiles',
    'setupFilesAfterEnv',
  ].map((key) => [key, e2e[key]]),
);

// MUTATION_SPECS=unit: the unit specs alone, a quick loop over the pure modules (a minute per
// file, not the hours the end-to-end specs take; see docs/development.md).
const specs = process.env.MUTATION_SPECS === 'unit' ? unitSpecs : [...unitSpecs, ...e2eSpecs];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    config: {
      ...runOptions,
      ...shared,
      projects: undefined,
      testMatch: specs,
    },
  },
  mutate: [
    ...requestPath.map((dir) => `src/${dir}/**/*.ts`),
    '!src/**/*.spec.ts',
    // Module wiring and OpenAPI decorators only: no request-time logic to mutate.
    '!src/**/*.module.ts',
    '!src/**/*.dto.ts',
    '!src/**/dto/**',
    '!src/**/*.entity.ts',
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
