import { All, MethodNotAllowedException } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { READ_ONLY } from '../errors/error-texts';

/**
 * Base of every controller: a catch-all over its paths (by default its collection
 * and `:id`). Nest registers a subclass's own routes before inherited ones, so it sees only the
 * methods the GET routes do not answer: a 405 with `Allow: GET, HEAD` (set by
 * ProblemDetailsFilter), whatever the body. A function, not a class, so that each controller
 * names its own paths (`extends ReadOnlyController(['live', 'ready'])`).
 */
export function ReadOnlyController(paths: string[] = ['', ':id']) {
  abstract class ReadOnly {
    @All(paths)
    @ApiExcludeEndpoint()
    rejectOtherMethods(): never {
      throw new MethodNotAllowedException(READ_ONLY);
    }
  }
  return ReadOnly;
}
