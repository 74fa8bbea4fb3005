import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  Injectable,
  PayloadTooLargeException,
} from '@nestjs/common';
import { Request } from 'express';
import { bodyTooLarge, INVALID_PATH, INVALID_PERCENT_ENCODING } from './error-texts';
import { hasOversizedBody, MAX_REQUEST_BODY_BYTES } from './request-size.middleware';
import { undecodableParams } from './undecodable-path.middleware';

/**
 * What a read may not carry, checked only once its caller is known (after ApiKeyGuard), so
 * that nothing about a request is answered before its key: a body over the limit (413) and a
 * path parameter that is not valid percent-encoding (400). Any other method can never succeed
 * and is left to the 405 of ReadOnlyController, whatever its body or path.
 */
@Injectable()
export class ReadRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.method !== 'GET' && request.method !== 'HEAD') return true;
    if (hasOversizedBody(request)) {
      throw new PayloadTooLargeException(bodyTooLarge(MAX_REQUEST_BODY_BYTES));
    }
    const names = undecodableParams(request);
    if (names.length > 0) {
      throw new BadRequestException({
        message: INVALID_PATH,
        errors: names.map((name) => ({ name, reason: INVALID_PERCENT_ENCODING })),
      });
    }
    return true;
  }
}
