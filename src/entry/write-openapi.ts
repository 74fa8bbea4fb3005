import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../app.module';
import { buildOpenApiDocument } from '../openapi/openapi';

const OPENAPI_FILE = 'openapi.json';

/**
 * The OpenAPI document as the running app serves it, built without a database: in preview mode
 * Nest scans modules, controllers and their metadata but instantiates no provider, so the
 * TypeORM factory never connects. The environment only has to pass validation.
 */
export async function generateOpenApiJson(): Promise<string> {
  process.env.DATABASE_URL ||= 'postgres://openapi@127.0.0.1:1/none';
  process.env.API_KEYS ||= 'unused';
  process.env.CURSOR_SECRET ||= 'unused-when-only-writing-the-document';
  const app = await NestFactory.create<NestExpressApplication>(await AppModule.forRoot(), {
    preview: true,
    logger: ['error'],
  });
  try {
    return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

// `npm run openapi` writes openapi.json at the repository root (run from there).
if (require.main === module) {
  generateOpenApiJson()
    .then((json) => {
      writeFileSync(OPENAPI_FILE, json);
      console.log(`Wrote ${OPENAPI_FILE}`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
