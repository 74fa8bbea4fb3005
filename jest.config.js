/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

// The specs that start processes, build images, sit behind proxies, read query plans, drive a
// browser or fuzz: minutes, where the rest take seconds. `npx jest --selectProjects e2e` skips them.
const OPERATIONAL = [
  'changes-no-gaps',
  'changes-query-plans',
  'client-package',
  'database-outage',
  'database-tls',
  'docs-browser',
  'embedded-database-root',
  'failover',
  'fuzz',
  'graceful-shutdown',
  'index-migrations',
  'kubernetes',
  'least-privilege',
  'links-slow-readers',
  'logging',
  'malformed-http',
  'monitoring',
  'operations',
  'pod-bounds',
  'pgbouncer',
  'production-start',
  'query-plans',
  'rate-limit-redis',
  'redis-gauge',
  'read-replicas',
  'runtime-image',
  'scoped-keys-property',
  'shared-counts',
  'shared-counts-lock',
  'sync-clients',
  'tracing',
];
const operational = OPERATIONAL.map((name) => `<rootDir>/test/e2e/${name}.e2e-spec.ts`);

/** What every project shares: each test file gets its own database and the contract check. */
const shared = {
  testEnvironment: 'node',
  // NestJS 12 ships ES modules only; Jest's CommonJS runtime needs them transformed.
  transform: { '^.+\\.(t|j)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
  moduleNameMapper: {
    // The client's sources import each other as './x.js', as its ES module build needs.
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Its package name (a devDependency linked to clients/typescript) means its sources here.
    '^@links-clients/client$': '<rootDir>/clients/typescript/src/client.ts',
    '^@links-clients/client/(.*)$': '<rootDir>/clients/typescript/src/$1.ts',
  },
  // Stryker's sandboxes hold copies of the tests.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/.stryker-tmp/'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
  setupFiles: ['<rootDir>/test/support/suite-env.ts'],
  // The contract test: every e2e response is checked against openapi.json.
  setupFilesAfterEnv: ['<rootDir>/test/support/contract-hook.ts'],
};

module.exports = {
  // Once per run, whichever projects are selected.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, ...operational],
    },
    { ...shared, displayName: 'operational', testMatch: operational },
  ],
};
