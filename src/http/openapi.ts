import { INestApplication, MethodNotAllowedException, NotFoundException } from '@nestjs/common';
import { NextFunction, Request, Response } from 'express';
import { makeExact } from './openapi-exact';
import { NO_RESOURCE, READ_ONLY } from './error-texts';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Links and Clients Data API')
    .setDescription(
      'Read-only access to links and clients. Every /api/data route needs ' +
        '`Authorization: Bearer <API key>`. Errors are RFC 9457 problem details. ' +
        'A path with a trailing slash answers like the same path without it ' +
        '(`/api/data/links/` is `/api/data/links`). Every 200 carries a weak `ETag`; ' +
        'send it back in `If-None-Match` to get a 304 without a body while the data is unchanged. ' +
        'With `Accept-Encoding: gzip` or `br`, bodies over 1 KiB are compressed.',
    )
    .setVersion('1.0')
    .addServer('/', 'The server that serves this document')
    .addTag('links', 'Links: listed whole, or fetched by id')
    .addTag('clients', 'Clients: filtered and paged (by page number or cursor), or fetched by id')
    // An API key is opaque (not a JWT), so the scheme names no bearerFormat.
    .addSecurity('bearer', { type: 'http', scheme: 'bearer', description: 'An API key' })
    .addSecurityRequirements('bearer')
    .build();
  return makeExact(SwaggerModule.createDocument(app, config));
}

/**
 * What is served under /docs: the page, its script and the document, then the files of
 * swagger-ui-dist the page loads. The package's other files (its package.json, README, source
 * maps, the stock initializer) would otherwise be served too, naming versions and people.
 */
const DOCS_FILES = new Set([
  '',
  'swagger-ui-init.js',
  'openapi.json',
  'openapi.yaml',
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);

/** Serves the interactive reference at /docs and the document at /docs/openapi.json (public). */
export function setUpOpenApi(app: INestApplication): void {
  app.use('/docs', (req: Request, _res: Response, next: NextFunction) => {
    if (!DOCS_FILES.has(req.path.slice(1))) throw new NotFoundException(NO_RESOURCE);
    // As on every other path: 405 with `Allow: GET, HEAD` (set by ProblemDetailsFilter).
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new MethodNotAllowedException(READ_ONLY);
    }
    next();
  });
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
}
