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

/**
 * Runs before authentication: a valid key draws on its own budget (RATE_LIMIT_PER_KEY), any
 * other request on its client IP's (RATE_LIMIT_PER_IP), so guessing keys is throttled too.
 * One budget per caller across all routes, with the standard RateLimit-* headers.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override headerPrefix = 'RateLimit';
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
    // The one throttler's name is `default`.
    this.isSkipped = routeFlag(reflector, `${THROTTLER_SKIP}default`);
  }

  protected override async throwThrottlingException(): Promise<void> {
    throw new ThrottlerException(RATE_LIMITED);
  }

  /**
   * The base class reads, on every request and for every throttler, whether the route skips
   * throttling and five per-route options (limit, ttl, …) this app never sets: one throttler,
   * one budget per caller. Only @SkipThrottle is read, once per route.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isSkipped(context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const caller = await this.verifier.callerOf(request);
    // An IPv6 client is tracked by its /64, which one machine usually holds whole.
    const tracker = caller
      ? `key:${caller.keyId}`
      : `ip:${normalizeIp(request.ip ?? 'unknown', DEFAULT_IPV6_SUBNET_PREFIX)}`;
    const limit = caller ? this.env.RATE_LIMIT_PER_KEY : this.env.RATE_LIMIT_PER_IP;
    const ttl = this.env.RATE_LIMIT_WINDOW_MS;
    try {
      await this.handleRequest({
        context,
        throttler: this.throttlers[0],
        limit,
        ttl,
        blockDuration: ttl,
        getTracker: () => tracker,
        generateKey: (_context: ExecutionContext, trackerName: string, throttler: string) =>
          `ratelimit:${throttler}:${trackerName}`,
      });
    } catch (error) {
      if (!(error instanceof ThrottlerException)) throw error;
      // The 429 carries the RateLimit-* headers too (the base class sets only Retry-After).
      const response = context.switchToHttp().getResponse<Response>();
      response.setHeader(`${this.headerPrefix}-Limit`, limit);
      response.setHeader(`${this.headerPrefix}-Remaining`, 0);
      response.setHeader(`${this.headerPrefix}-Reset`, response.getHeader('Retry-After') ?? 1);
      throw error;
    }
    // Within its budget, a key still has only so many requests answered at once.
    if (caller) {
      const response = context.switchToHttp().getResponse<Response>();
      const refusal = this.inFlight.admitForKey(response, caller.keyId);
      if (refusal !== undefined) {
        response.setHeader('Retry-After', String(retryAfterWhenBusy()));
        throw new ThrottlerException(refusal);
      }
    }
    return true;
  }
}
