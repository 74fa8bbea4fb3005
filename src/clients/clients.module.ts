import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DatabaseModule } from '../database/database.module';
import { CountCache } from '../common/count-cache';
import { Env } from '../config/env';
import { ClientsController } from './clients.controller';
import { ClientsService } from './clients.service';

@Module({
  imports: [DatabaseModule],
  controllers: [ClientsController],
  providers: [
    ClientsService,
    {
      provide: CountCache,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) =>
        new CountCache(config.get('COUNT_CACHE_TTL_MS')),
    },
  ],
})
export class ClientsModule {}
