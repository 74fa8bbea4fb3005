import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  DEFAULT_IPV6_SUBNET_PREFIX,
  InjectThrottlerOptions,
  normalizeIp,
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants';
import { Request, Response } from 'express';
import { ApiKeyVerifier } from '../api-keys/api-key-verifier';
import { RateLimitEnv } from '../config/rate-limit.env';
import { RATE_LIMITED } from '../errors/error-texts';
import { retryAfterWhenBusy } from '../errors/service-busy.exception';
import { InFlightRequests } from '../limits/in-flight-requests';
import { routeFlag } from '../requests/route-flag';

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');
// The name of the one throttler (ThrottlerModule's default).
const THROTTLER = 'default';

/**
 * Runs before authentication: a valid key draws on its own budget (RATE_LIMIT_PER_KEY), any
 * other request on its client IP's (RATE_LIMIT_PER_IP), so guessing keys is throttled too.
 * One budget per caller across all routes, with the standard RateLimit-* headers.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly isSkipped: (context: ExecutionContext) => boolean;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @Inject(RATE_LIMIT_STORAGE) storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly verifier: ApiKeyVerifier,
    private readonly env: RateLimitEnv,
    private readonly inFlight: InFlightRequests,
  ) {
    super(options, storage, reflector);
    this.isSkipped = routeFlag(reflector, `${THROTTLER_SKIP}${THROTTLER}`);
  }

  /**
   * The base class reads, on every request and for every throttler, whether the route skips
   * throttling and five per-route options (limit, ttl, …) this app never sets, then sets its
   * headers through Express's `res.header`: one throttler here, one budget per caller, its
   * storage drawn on directly. Only @SkipThrottle is read, once per route.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isSkipped(context)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const caller = await this.verifier.callerOf(request);
    // An IPv6 client is tracked by its /64, which one machine usually holds whole.
    const tracker = caller
      ? `key:${caller.keyId}`
      : `ip:${normalizeIp(request.ip ?? 'unknown', DEFAULT_IPV6_SUBNET_PREFIX)}`;
    const limit = caller ? this.env.RATE_LIMIT_PER_KEY : this.env.RATE_LIMIT_PER_IP;
    const ttl = this.env.RATE_LIMIT_WINDOW_MS;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } =
      await this.storageService.increment(
        `ratelimit:${THROTTLER}:${tracker}`,
        ttl,
        limit,
        ttl,
        THROTTLER,
      );
    response.setHeader('RateLimit-Limit', String(limit));
    if (isBlocked) {
      response.setHeader('RateLimit-Remaining', '0');
      response.setHeader('RateLimit-Reset', String(timeToBlockExpire));
      response.setHeader('Retry-After', String(timeToBlockExpire));
      throw new ThrottlerException(RATE_LIMITED);
    }
    response.setHeader('RateLimit-Remaining', String(Math.max(0, limit - totalHits)));
    response.setHeader('RateLimit-Reset', String(timeToExpire));
    // Within its budget, a key still has only so many requests answered at once.
    if (caller) {
      const refusal = this.inFlight.admitForKey(response, caller.keyId);
      if (refusal !== undefined) {
        response.setHeader('Retry-After', String(retryAfterWhenBusy()));
        throw new ThrottlerException(refusal);
      }
    }
    return true;
  }
}
