import { INestApplication } from '@nestjs/common';
import { makeExact } from './openapi-exact';
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
        'With `Accept-Encoding: gzip` or `br`, bodies over 1 KiB are compressed. ' +
        'Any other method than GET and HEAD is a 405 problem with `Allow: GET, HEAD`; on ' +
        '/api/data routes the key is checked first, so without a valid key it is a 401.',
    )
    .setVersion('1.0')
    // Absolute, for generated clients; the docs page puts its own origin in its place.
    .addServer('{scheme}://{host}', 'A deployment of this API', {
      scheme: { enum: ['https', 'http'], default: 'http' },
      host: { default: 'localhost:3000', description: 'Its host and port' },
    })
    .addTag('links', 'Links: listed whole, or fetched by id')
    .addTag('clients', 'Clients: filtered and paged (by page number or cursor), or fetched by id')
    // An API key is opaque (not a JWT), so the scheme names no bearerFormat.
    .addSecurity('bearer', {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key. A managed key may be scoped: to operations (`links:read`: List and Get Link; ' +
        '`clients:read`: List and Get Client; `changes:read`: both feeds; any other is a 403 ' +
        'naming the scope it lacks), and to links (it then sees only those links and their ' +
        'clients, in every list, get, total, cursor and feed; any other id is a 404).',
    })
    .addSecurityRequirements('bearer')
    .build();
  return makeExact(SwaggerModule.createDocument(app, config));
}
