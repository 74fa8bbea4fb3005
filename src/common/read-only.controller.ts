import { All, MethodNotAllowedException } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';

/**
 * Base of the resource controllers. Nest registers a subclass's own routes before inherited
 * ones, so this catch-all sees only the methods its GET routes do not answer: a 405 with
 * `Allow: GET, HEAD` (set by ProblemDetailsFilter), whatever the body.
 */
export abstract class ReadOnlyController {
  @All(['', ':id'])
  @ApiExcludeEndpoint()
  rejectOtherMethods(): never {
    throw new MethodNotAllowedException('This resource is read-only; use GET or HEAD');
  }
}
