import { NestApplicationOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { parseQuery } from './common/parse-query';
import { requestIdMiddleware } from './common/request-id.middleware';
import { setUpOpenApi } from './openapi';

// The API reads nothing from request bodies, so none is parsed (CONTRACT §4: no key in a body).
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

/** Everything main.ts does to the app besides listening, so the e2e tests run the same wiring. */
export function configureApp(app: NestExpressApplication): void {
  app.disable('x-powered-by');
  // Hashing every body for a weak ETag costs CPU on each response; no consumer revalidates.
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.use(requestIdMiddleware);
  setUpOpenApi(app);
}
