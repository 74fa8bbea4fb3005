import { LogLevel, NestApplicationOptions } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import { accessLogMiddleware } from './common/access-log.middleware';
import { parseQuery } from './common/parse-query';
import { RedactingLogger } from './common/redacting-logger';
import { requestIdMiddleware } from './common/request-id.middleware';
import { requestSizeMiddleware } from './common/request-size.middleware';
import { Env } from './config/env';
import { setUpOpenApi } from './openapi';

// The API reads nothing from request bodies, so none is parsed (CONTRACT §4: no key in a body).
// Logs are buffered until configureApp installs the redacting logger.
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

/** Everything main.ts does to the app besides listening, so the e2e tests run the same wiring. */
export function configureApp(app: NestExpressApplication, logLevels?: LogLevel[]): void {
  const config = app.get(ConfigService<Env, true>);
  app.useLogger(new RedactingLogger(config.get('API_KEYS', { infer: true }) ?? [], { logLevels }));
  app.disable('x-powered-by');
  // Hashing every body for a weak ETag costs CPU on each response; no consumer revalidates.
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.use(requestIdMiddleware);
  app.use(accessLogMiddleware);
  app.use(helmet());
  app.use(requestSizeMiddleware);
  const origins = config.get('CORS_ORIGINS', { infer: true });
  // CORS is off unless CORS_ORIGINS lists the browser origins allowed to call the API.
  if (origins) {
    app.enableCors({
      origin: origins,
      methods: ['GET', 'HEAD'],
      allowedHeaders: ['Authorization', 'X-Request-Id'],
      exposedHeaders: [
        'X-Request-Id',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ],
      maxAge: 600,
    });
  }
  setUpOpenApi(app);
}
