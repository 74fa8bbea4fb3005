import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { DatabaseApiKeys, KEY_CACHE_TTL_MS } from '../api-keys/database-api-keys';
import { LastUsedRecorder } from '../api-keys/last-used-recorder';
import { Env } from '../config/env';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeyVerifier } from '../api-keys/api-key-verifier';
import { ApiKeys } from '../api-keys/environment-keys';

@Module({
  imports: [PassportModule, RateLimitModule],
  providers: [
    {
      provide: ApiKeys,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) =>
        new ApiKeys(config.get('API_KEYS', { infer: true }) ?? []),
    },
    {
      provide: KEY_CACHE_TTL_MS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => config.get('KEY_CACHE_TTL_MS'),
    },
    DatabaseApiKeys,
    LastUsedRecorder,
    ApiKeyVerifier,
    ApiKeyStrategy,
    // Global guards run in this order: the rate limit first, so failed keys are throttled too.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
})
export class AuthModule {}
