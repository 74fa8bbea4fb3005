import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Response } from 'supertest';

interface Operation {
  responses: Record<string, { headers?: Record<string, { required?: boolean }>; content?: object }>;
}

// The headers the server itself decides; transport and security headers are not checked.
const CHECKED_HEADERS = [
  'etag',
  'cache-control',
  'vary',
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'allow',
];

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks real responses against the OpenAPI document the app serves: the status must be
 * documented for the operation, and the body must validate against the schema declared for
 * its content type.
 */
export class OpenApiChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });

  constructor(readonly document: Record<string, unknown>) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi');
  }

  /** The contract check of one exchange; undocumented paths are not this document's concern. */
  expectConforms(method: string, url: string, response: Response): void {
    // The path as sent: URL parsing would resolve dot segments (`/links/.` is an id here).
    const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0];
    const template = this.templateOf(path);
    if (!template || method === 'OPTIONS') return;
    const verb = method.toLowerCase();
    const operations = (this.document.paths as Record<string, Record<string, Operation>>)[template];
    const where = `${method} ${path} → ${response.status}`;
    // Other methods: a 405 problem (the document's description says so), or what GET may answer.
    if (!operations[verb] && response.status === 405) return this.expectProblem(response, where);
    const operation = operations[verb] ?? operations.get;
    const documented = operation.responses[String(response.status)];
    if (!documented) throw new Error(`Contract: undocumented status: ${where}`);
    const headers = Object.keys(documented.headers ?? {}).map((name) => name.toLowerCase());
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      if (header.required && response.headers[name.toLowerCase()] === undefined)
        throw new Error(`Contract: required header ${name} missing: ${where}`);
    }
    for (const name of CHECKED_HEADERS) {
      if (response.headers[name] !== undefined && !headers.includes(name))
        throw new Error(`Contract: undocumented header ${name}: ${where}`);
    }
    const hasBody = verb !== 'head' && Boolean(response.text);
    if (!documented.content) {
      if (hasBody) throw new Error(`Contract: a body where none is documented: ${where}`);
      return;
    }
    if (!hasBody || verb === 'head') return;
    this.expectValid(response, template, operations[verb] ? verb : 'get');
  }

  private templateOf(path: string): string | undefined {
    // Express routes ignore case and a trailing slash; so does the document's reading here.
    const wanted = path.replace(/(.)\/$/, '$1');
    return Object.keys(this.document.paths as object).find((template) =>
      new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`, 'i').test(wanted),
    );
  }

  /** A problem+json body valid against the document's ProblemDetailsDto. */
  expectProblem(response: Response, where: string): void {
    const mediaType = String(response.headers['content-type']).split(';')[0];
    const validate = this.ajv.getSchema('openapi#/components/schemas/ProblemDetailsDto');
    if (mediaType !== 'application/problem+json' || !validate?.(response.body))
      throw new Error(`Contract: not a problem: ${where}`);
  }

  expectValid(response: Response, pathTemplate: string, method = 'get'): void {
    const mediaType = String(response.headers['content-type']).split(';')[0];
    const pointer = [
      'paths',
      pathTemplate,
      method,
      'responses',
      String(response.status),
      'content',
      mediaType,
      'schema',
    ]
      .map(escapePointer)
      .join('/');
    const validate: ValidateFunction | undefined = this.ajv.getSchema(`openapi#/${pointer}`);
    if (!validate)
      throw new Error(
        `Not documented: ${method.toUpperCase()} ${pathTemplate} ${response.status} ${mediaType}`,
      );
    if (!validate(response.body)) {
      throw new Error(`Body does not match ${pointer}: ${this.ajv.errorsText(validate.errors)}`);
    }
  }
}
