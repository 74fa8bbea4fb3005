import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { APP_OPTIONS, configureApp } from './app.setup';
import { Env } from './config/env';

/** Builds and starts the API; resolves with its base URL once it listens. */
export async function startApi(): Promise<{ app: NestExpressApplication; url: string }> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, APP_OPTIONS);
  configureApp(app);
  const port = app.get(ConfigService<Env, true>).get('PORT', { infer: true });
  await app.listen(port);
  return { app, url: (await app.getUrl()).replace('[::1]', 'localhost') };
}

if (require.main === module) {
  startApi()
    .then(({ url }) => console.log(`Links and Clients API listening on ${url}`))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
