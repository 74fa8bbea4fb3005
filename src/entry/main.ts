import { Logger } from '@nestjs/common';
import { shutDownGracefully } from '../health/graceful-shutdown';
import { weakApiKeyProblems } from '../api-keys/environment-keys';
import { splitList } from '../config/env-decorators';
import { startApi } from '../start-api';

async function refuseWeakApiKeys(): Promise<void> {
  const problems = weakApiKeyProblems(splitList(process.env.API_KEYS ?? ''));
  if (problems.length > 0) throw new Error(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
}

// Production start (`npm run start:prod`, docs/operations.md, Production path): no embedded database, no seeding and
// no implicit migrations. A bad environment ends in one message naming each variable, exit 1.
// Weak keys are refused here, in the production entry point only, so no setting can skip it;
// the development start and the tests (which boot the app module directly) use short keys.
refuseWeakApiKeys()
  .then(startApi)
  .then(({ app, url }) => {
    shutDownGracefully(app);
    new Logger('Main').log(`Links and Clients API listening on ${url}`);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
