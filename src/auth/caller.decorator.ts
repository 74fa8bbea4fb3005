import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Response } from 'express';
import { ApiCaller } from '../api-keys/api-key-verifier';

/** Where ApiKeyGuard leaves the request's caller, once its key is valid. */
export const CALLER_LOCAL = 'caller';

/** The caller whose key the request carries: the parameter of a route that needs it. */
export const Caller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ApiCaller =>
    context.switchToHttp().getResponse<Response>().locals[CALLER_LOCAL] as ApiCaller,
);
