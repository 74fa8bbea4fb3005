import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { Env } from '../config/env';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeys } from './api-keys';

@Module({
  imports: [PassportModule],
  providers: [
    {
      provide: ApiKeys,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => new ApiKeys(config.get('API_KEYS')),
    },
    ApiKeyStrategy,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
})
export class AuthModule {}
