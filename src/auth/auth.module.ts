import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ApiKeyStrategy } from './api-key.strategy';

/** Authentication: the bearer strategy behind ApiKeyGuard (registered in AppModule). */
@Module({
  imports: [PassportModule, ApiKeysModule],
  providers: [ApiKeyStrategy],
})
export class AuthModule {}
