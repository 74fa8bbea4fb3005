import { Expose } from 'class-transformer';
import { IsOptional, Matches } from 'class-validator';
import { ServiceUrl, WholeMilliseconds, WholeRequests } from './env-decorators';

/** Budgets per caller and window, and where they are counted. */
export class RateLimitEnv {
  // Defaults are flood guards (1,000 and 100 requests/s), not quotas: a busy sync job or a
  // test suite never meets them. Operators set real quotas per deployment.
  @WholeRequests()
  RATE_LIMIT_PER_KEY = 60000;

  @WholeRequests()
  RATE_LIMIT_PER_IP = 6000;

  @WholeMilliseconds(1000)
  RATE_LIMIT_WINDOW_MS = 60000;

  @Expose()
  @IsOptional()
  @ServiceUrl(
    ['redis:', 'rediss:'],
    'REDIS_URL must be a redis:// or rediss:// URL, with @ : / ? # % in a user or password percent-encoded',
  )
  REDIS_URL?: string;

  @Expose()
  @Matches(/^[\w:.-]{1,100}$/, { message: 'REDIS_KEY_PREFIX must be 1-100 of [A-Za-z0-9_:.-]' })
  REDIS_KEY_PREFIX = 'links-clients:';
}
