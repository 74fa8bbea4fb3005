import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Links and Clients Data API')
    .setDescription(
      'Read-only access to links and clients. Every /api/data route needs ' +
        '`Authorization: Bearer <API key>`. Errors are RFC 9457 problem details.',
    )
    .setVersion('1.0')
    .addServer('/', 'The server that serves this document')
    .addTag('links', 'Links: listed whole, or fetched by id')
    .addTag('clients', 'Clients: filtered and paged (by page number or cursor), or fetched by id')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key' })
    .addSecurityRequirements('bearer')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Serves the interactive reference at /docs and the document at /docs/openapi.json (public). */
export function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
}
