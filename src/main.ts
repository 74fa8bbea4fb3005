import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { Env } from './config/env';
import { ConfigService } from '@nestjs/config';

/** Builds and starts the API; resolves with its base URL once it listens. */
export async function startApi(): Promise<{ app: NestExpressApplication; url: string }> {
  // The API reads nothing from request bodies, so none is ever parsed (CONTRACT §4: no key in a body).
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bodyParser: false });
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
