import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Env } from '../config/env';
import { ApiKey } from './api-key.entity';
import { ApiKeyVerifier } from './api-key-verifier';
import { DatabaseApiKeys, KEY_CACHE_TTL_MS } from './database-api-keys';
import { ApiKeys } from './environment-keys';
import { LastUsedRecorder } from './last-used-recorder';

/** The keys themselves: API_KEYS and the api_keys table, and who a request's key names. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey])],
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
  ],
  exports: [ApiKeyVerifier],
})
export class ApiKeysModule {}
