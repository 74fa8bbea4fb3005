import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KeysEnv } from '../config/keys.env';
import { DatabaseModule } from '../database/database.module';
import { ApiKey } from './api-key.entity';
import { ApiKeyVerifier } from './api-key-verifier';
import { DatabaseApiKeys } from './database-api-keys';
import { EnvironmentApiKeys } from './environment-keys';
import { LastUsedRecorder } from './last-used-recorder';

/** The keys themselves: API_KEYS and the api_keys table, and who a request's key names. */
@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([ApiKey])],
  providers: [
    {
      provide: EnvironmentApiKeys,
      inject: [KeysEnv],
      useFactory: (env: KeysEnv) => new EnvironmentApiKeys(env.API_KEYS ?? []),
    },
    DatabaseApiKeys,
    LastUsedRecorder,
    ApiKeyVerifier,
  ],
  exports: [ApiKeyVerifier],
})
export class ApiKeysModule {}
