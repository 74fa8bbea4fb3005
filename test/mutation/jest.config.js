// The Jest config of the mutation run (stryker.config.mjs): one flat project, because
// StrykerJS's per-test coverage wraps the top-level test environment and setup files, and it
// merges its own options into this file's (a `projects` list here would win over them).
const path = require('node:path');
const { projects, ...runOptions } = require('../../jest.config.js');

const e2e = projects.find((project) => project.displayName === 'e2e');

// The request path's folders (the key checks the guard calls live in src/api-keys).
const REQUEST_PATH = [
  ...['clients', 'links', 'changes', 'auth', 'api-keys'],
  ...['requests', 'query', 'errors', 'responses', 'logging', 'limits'],
];
const unitSpecs = REQUEST_PATH.map((dir) => `<rootDir>/src/${dir}/**/*.spec.ts`);
// The fast end-to-end specs as one file (see it for why); the operational ones (processes,
// images, proxies, query plans, browsers, fuzzing) add minutes per mutant and kill nothing more.
const e2eSpecs = ['<rootDir>/test/mutation/request-path.mutation-spec.ts'];

module.exports = {
  ...runOptions,
  rootDir: path.join(__dirname, '../..'),
  testEnvironment: e2e.testEnvironment,
  transform: e2e.transform,
  transformIgnorePatterns: e2e.transformIgnorePatterns,
  testPathIgnorePatterns: e2e.testPathIgnorePatterns,
  modulePathIgnorePatterns: e2e.modulePathIgnorePatterns,
  setupFiles: e2e.setupFiles,
  setupFilesAfterEnv: e2e.setupFilesAfterEnv,
  // MUTATION_SPECS=unit: the unit specs alone, a quick loop over the pure modules.
  testMatch: process.env.MUTATION_SPECS === 'unit' ? unitSpecs : [...unitSpecs, ...e2eSpecs],
};

module.exports.REQUEST_PATH = REQUEST_PATH;
