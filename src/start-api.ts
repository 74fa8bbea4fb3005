import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { APP_OPTIONS, configureApp } from './app.setup';
import { HttpEnv } from './config/http.env';
import { keepRequestObjectsYoung } from './garbage-collection';

/** Builds and starts the API; resolves with its base URL once it listens. */
export async function startApi(): Promise<{ app: NestExpressApplication; url: string }> {
  keepRequestObjectsYoung();
  const app = await NestFactory.create<NestExpressApplication>(await AppModule.forRoot(), {
    ...APP_OPTIONS,
    // Lines logged before the app's logger takes over wait for it (bufferLogs); when the app
    // fails to start (a database that does not answer), they go here instead: JSON lines too
    // (Nest's own keys: `level` as a word, `message`), unless people read them.
    logger: process.env.LOG_FORMAT === 'pretty' ? undefined : new ConsoleLogger({ json: true }),
  });
  configureApp(app);
  await app.listen(app.get(HttpEnv).PORT);
  return { app, url: (await app.getUrl()).replace(/\[::1?\]|127\.0\.0\.1/, 'localhost') };
}
