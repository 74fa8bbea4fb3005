import { Logger } from '@nestjs/common';
import { shutDownGracefully } from '../health/graceful-shutdown';
import { startApi } from '../start-api';

// Production start (`npm run start:prod`, docs/operations.md, Production path): no embedded database, no seeding and
// no implicit migrations. A bad environment ends in one message naming each variable, exit 1.
startApi()
  .then(({ app, url }) => {
    shutDownGracefully(app);
    new Logger('Main').log(`Links and Clients API listening on ${url}`);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
