import { WholeMilliseconds, WholeRequests } from './env-decorators';

/** Budgets per caller and window (where they are counted: RedisEnv). */
export class RateLimitEnv {
  // Defaults are flood guards (1,000 and 100 requests/s), not quotas: a busy sync job or a
  // test suite never meets them. Operators set real quotas per deployment.
  @WholeRequests()
  RATE_LIMIT_PER_KEY = 60000;

  @WholeRequests()
  RATE_LIMIT_PER_IP = 6000;

  @WholeMilliseconds(1000)
  RATE_LIMIT_WINDOW_MS = 60000;
}
