import { Expose } from 'class-transformer';
import { IsOptional, Matches } from 'class-validator';
import { ServiceUrl } from './env-decorators';

/** The Redis that replicas share (rate limits, list totals); unset, each process works alone. */
export class RedisEnv {
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
