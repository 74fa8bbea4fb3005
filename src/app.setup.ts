import { NestExpressApplication } from '@nestjs/platform-express';
import { parseQuery } from './common/parse-query';
import { requestIdMiddleware } from './common/request-id.middleware';
import { setUpOpenApi } from './openapi';

/** Everything main.ts does to the app besides listening, so the e2e tests run the same wiring. */
export function configureApp(app: NestExpressApplication): void {
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  app.use(requestIdMiddleware);
  app.enableShutdownHooks();
  setUpOpenApi(app);
}
