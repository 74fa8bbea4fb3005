// First: tracing, when on, must start before the modules it instruments are loaded.
import { stopTracing } from './telemetry/tracing';
import { Logger } from '@nestjs/common';
import { getHeapStatistics } from 'node:v8';
import { unboundedYoungGenerationWarning } from './garbage-collection';
import { waitingPollsHeapWarning, waitingPollsMemoryWarning } from './changes/waiting-polls-memory';
import { currentContainerMemoryLimit } from './metrics/memory-limit';
import { LimitsEnv } from './config/limits.env';
import { shutDownGracefully } from './health/graceful-shutdown';
import { weakApiKeyProblems, weakCursorSecretProblems } from './config/weak-secrets';
import { unverifiedDatabaseProblems } from './config/unverified-database';
import { splitList } from './config/env-decorators';
import { validateEnvSections } from './config/env';
import { readSecretFiles } from './config/secret-files';
import { startApi } from './start-api';
import { MetricsServer } from './metrics/metrics-server';

// One message for every problem: the weak secrets together with any other invalid variable.
async function refuseInvalidEnvironment(): Promise<void> {
  // First, so the checks below see secrets given as files.
  const secretFileProblems = readSecretFiles(process.env);
  validateEnvSections(process.env, [
    ...secretFileProblems,
    ...weakApiKeyProblems(splitList(process.env.API_KEYS ?? '')),
    ...weakCursorSecretProblems(process.env),
    ...unverifiedDatabaseProblems(process.env),
  ]);
}

// Production start (`npm run start:prod`, docs/operations.md, Production path): no embedded database, no seeding and
// no implicit migrations. A bad environment ends in one message naming each variable, exit 1.
// Weak keys and cursor secrets, and unverified remote databases, are refused here, in the production entry point only, so no
// setting can skip it; the development start and the tests (which boot the app module
// directly) use short keys.
refuseInvalidEnvironment()
  .then(startApi)
  .then(({ app, url }) => {
    shutDownGracefully(app, stopTracing);
    // The limit shows whether the heap bound (docs/operations.md, Memory) is in effect.
    const heapLimit = getHeapStatistics().heap_size_limit;
    const heapLimitMb = Math.round(heapLimit / 2 ** 20);
    const logger = new Logger('Main');
    logger.log(`Links and Clients API listening on ${url} (V8 heap limit ${heapLimitMb} MB)`);
    logger.log(`Prometheus metrics on port ${app.get(MetricsServer).port}, path /metrics`);
    const { MAX_WAITING_POLLS } = app.get(LimitsEnv);
    const warnings = [
      unboundedYoungGenerationWarning(process.env.NODE_OPTIONS, process.execArgv),
      waitingPollsHeapWarning(MAX_WAITING_POLLS, heapLimit),
      waitingPollsMemoryWarning(
        MAX_WAITING_POLLS,
        currentContainerMemoryLimit(),
        process.memoryUsage.rss(),
      ),
    ];
    for (const warning of warnings) if (warning) logger.warn(warning);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
