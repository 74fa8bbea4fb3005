import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Response } from 'supertest';

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
