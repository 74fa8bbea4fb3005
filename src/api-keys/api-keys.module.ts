import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { KeysEnv } from '../config/keys.env';
import { DatabaseModule } from '../database/database.module';
import { ApiKey } from './api-key.entity';
import { ApiKeyLink } from './api-key-link.entity';
import { ApiKeyVerifier } from './api-key-verifier';
import { DatabaseApiKeys } from './database-api-keys';
import { EnvironmentApiKeys } from './environment-keys';
import { LastUsedRecorder } from './last-used-recorder';
import { KeyLinks } from './key-links';

/** The keys themselves: API_KEYS and the api_keys table, and who a request's key names. */
@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([ApiKey, ApiKeyLink])],
  providers: [
    {
      provide: EnvironmentApiKeys,
      inject: [KeysEnv],
      useFactory: (env: KeysEnv) => new EnvironmentApiKeys(env.API_KEYS ?? []),
    },
    DatabaseApiKeys,
    LastUsedRecorder,
    ApiKeyVerifier,
    KeyLinks,
  ],
  exports: [ApiKeyVerifier, KeyLinks],
})
export class ApiKeysModule {}
