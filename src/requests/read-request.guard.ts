import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  Injectable,
  PayloadTooLargeException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Request, Response } from 'express';
import { bodyTooLarge, INVALID_PATH, INVALID_PERCENT_ENCODING } from '../errors/error-texts';
import { TAKES_NO_QUERY } from './no-query-params';
import {
  chunkedBodyFits,
  hasChunkedBody,
  hasOversizedBody,
  MAX_REQUEST_BODY_BYTES,
} from './request-size';
import { routeFlag } from './route-flag';
import { invalidQuery, UNKNOWN_PARAMETER } from '../query/strict-query.pipe';
import { undecodableParams } from './undecodable-path';

/**
 * What a read may not carry, checked only once its caller is known (after ApiKeyGuard), so
 * that nothing about a request is answered before its key: a body over the limit (413; a
 * chunked one is read up to the limit first, only then are the rest checked), a
 * path parameter that is not valid percent-encoding (400) and, on a route marked
 * @NoQueryParams(), any query parameter (400). Any other method can never succeed and is left
 * to the 405 of ReadOnlyController, whatever its body or path.
 *
 * Routes without query parameters are checked here rather than by a pipe: a piped parameter
 * costs every request a chain of promises, and a get by id would otherwise have two.
 */
@Injectable()
export class ReadRequestGuard implements CanActivate {
  private readonly takesNoQuery: (context: ExecutionContext) => boolean;

  constructor(reflector: Reflector) {
    this.takesNoQuery = routeFlag(reflector, TAKES_NO_QUERY);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.method !== 'GET' && request.method !== 'HEAD') return true;
    if (hasChunkedBody(request)) {
      // A client that waits to be invited (Expect: 100-continue) is, now that its key passed.
      if (expectsContinue(request)) context.switchToHttp().getResponse<Response>().writeContinue();
      return chunkedBodyFits(request).then((fits) => this.checkRead(context, request, fits));
    }
    return this.checkRead(context, request, !hasOversizedBody(request));
  }

  private checkRead(context: ExecutionContext, request: Request, bodyFits: boolean): boolean {
    if (!bodyFits) throw new PayloadTooLargeException(bodyTooLarge(MAX_REQUEST_BODY_BYTES));
    const names = undecodableParams(request);
    if (names.length > 0) {
      throw new BadRequestException({
        message: INVALID_PATH,
        errors: names.map((name) => ({ name, reason: INVALID_PERCENT_ENCODING })),
      });
    }
    if (this.takesNoQuery(context)) {
      const unknown = Object.keys(request.query as object);
      if (unknown.length > 0) {
        throw invalidQuery(unknown.map((name) => ({ name, reason: UNKNOWN_PARAMETER })));
      }
    }
    return true;
  }
}

/** An HTTP/1.1 request that asks for 100 Continue (HTTP/1.0 clients get no 1xx: RFC 9110). */
function expectsContinue(request: Request): boolean {
  const expectations = request.headers.expect?.toLowerCase().split(',') ?? [];
  return (
    request.httpVersion === '1.1' &&
    expectations.some((expectation) => expectation.trim() === '100-continue')
  );
}
