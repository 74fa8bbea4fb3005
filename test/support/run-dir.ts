import { mkdirSync, mkdtempSync } from 'node:fs';
import { resolve } from 'node:path';

// Inside the project, so that compiled code resolves node_modules; removed by global-teardown.
const PARENT = 'node_modules/.cache';

/** Creates the run's scratch directory; global-setup calls it once and exports its path. */
export function createRunDir(): string {
  mkdirSync(PARENT, { recursive: true });
  return resolve(mkdtempSync(`${PARENT}/links-clients-test-run-`));
}

/** The run's scratch directory, shared by every test file of the run. */
export function runDir(): string {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir) throw new Error('TEST_RUN_DIR is unset: run the tests through jest.config.js');
  return dir;
}
