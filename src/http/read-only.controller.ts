import { All, MethodNotAllowedException } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { READ_ONLY } from './error-texts';

/**
 * Base of the resource controllers. Nest registers a subclass's own routes before inherited
 * ones, so this catch-all sees only the methods its GET routes do not answer: a 405 with
 * `Allow: GET, HEAD` (set by ProblemDetailsFilter), whatever the body.
 */
export abstract class ReadOnlyController {
  @All(['', ':id'])
  @ApiExcludeEndpoint()
  rejectOtherMethods(): never {
    throw new MethodNotAllowedException(READ_ONLY);
  }
}
