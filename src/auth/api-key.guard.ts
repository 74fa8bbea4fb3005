import { ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { Request, Response } from 'express';
import { ApiCaller } from '../api-keys/api-key-verifier';
import { bearerKeyOf } from '../api-keys/bearer-key';
import { IS_PUBLIC } from './public.decorator';

/** What the bearer strategy is shown of a request. */
export interface BearerOnlyRequest {
  headers: { authorization?: string };
  request: Request;
}

/** The global guard: every route needs a valid API key unless marked @Public(). */
@Injectable()
export class ApiKeyGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    return super.canActivate(context);
  }

  // passport-http-bearer also reads `access_token` from the query string and the body; the
  // contract accepts the header only, so the strategy is shown nothing else — and the request
  // itself only as the key of its verification (ApiKeyVerifier.verifyRequest).
  override getRequest(context: ExecutionContext): BearerOnlyRequest {
    const request = context.switchToHttp().getRequest<Request>();
    return { headers: { authorization: request.headers.authorization }, request };
  }

  override handleRequest<TUser>(
    error: unknown,
    caller: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error) throw error;
    if (caller) {
      // For the access log, which names the key by its id.
      context.switchToHttp().getResponse<Response>().locals.apiKeyId = (
        caller as unknown as ApiCaller
      ).keyId;
      return caller;
    }
    const request = context.switchToHttp().getRequest<Request>();
    const keyWasSent = bearerKeyOf(request) !== undefined;
    context
      .switchToHttp()
      .getResponse<Response>()
      .setHeader(
        'WWW-Authenticate',
        keyWasSent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"',
      );
    throw new UnauthorizedException('A valid API key is required: Authorization: Bearer <key>');
  }
}
