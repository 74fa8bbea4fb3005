import {
  ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { Request, Response } from 'express';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { bearerKeyOf, hasRepeatedAuthorization } from '../api-keys/bearer-key';
import { headerOnly, HeaderOnlyRequest } from './header-only-request';
import { IS_PUBLIC } from './public.decorator';
import { CALLER_LOCAL } from './caller.decorator';
import { API_KEY_REQUIRED, AUTHORIZATION_REPEATED, lacksScope } from '../errors/error-texts';
import { requiredOperation } from './requires-operation.decorator';
import { Operation } from '../api-keys/key-scope';
import { pinQueryWithKeyScope } from '../query/key-scope';
import { routeFlag } from '../requests/route-flag';

/**
 * The global guard: every route needs a valid API key unless marked @Public(), and a key
 * limited to some operations only those (a 403 naming the scope it lacks).
 */
@Injectable()
export class ApiKeyGuard extends AuthGuard('bearer') {
  private readonly isPublic: (context: ExecutionContext) => boolean;
  private readonly operationOf: (context: ExecutionContext) => Operation | undefined;

  constructor(reflector: Reflector) {
    super();
    this.isPublic = routeFlag(reflector, IS_PUBLIC);
    this.operationOf = requiredOperation(reflector);
  }

  override canActivate(context: ExecutionContext) {
    if (this.isPublic(context)) return true;
    const http = context.switchToHttp();
    if (hasRepeatedAuthorization(http.getRequest<Request>())) {
      // Malformed credentials, a 401 like any key that is not valid (RFC 6750 would make it a
      // 400 "invalid_request"; the API answers every credential problem alike).
      http
        .getResponse<Response>()
        .setHeader('WWW-Authenticate', 'Bearer realm="api", error="invalid_token"');
      throw new UnauthorizedException(AUTHORIZATION_REPEATED);
    }
    return super.canActivate(context);
  }

  override getRequest(context: ExecutionContext): HeaderOnlyRequest {
    return headerOnly(context.switchToHttp().getRequest<Request>());
  }

  override handleRequest<TUser extends ApiCaller>(
    error: unknown,
    caller: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error) throw error;
    const http = context.switchToHttp();
    const response = http.getResponse<Response>();
    if (caller) {
      // For the access log, which names the key by its id, and the routes (@Caller).
      response.locals.apiKeyId = caller.keyId;
      response.locals[CALLER_LOCAL] = caller;
      const operation = caller.operations && this.operationOf(context);
      if (operation && !caller.operations!.includes(operation)) {
        throw new ForbiddenException(lacksScope(operation));
      }
      if (caller.isLinkScoped) pinQueryWithKeyScope(http.getRequest<Request>(), caller.keyId);
      return caller;
    }
    const keyWasSent = bearerKeyOf(http.getRequest<Request>()) !== undefined;
    response.setHeader(
      'WWW-Authenticate',
      keyWasSent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"',
    );
    throw new UnauthorizedException(API_KEY_REQUIRED);
  }
}
