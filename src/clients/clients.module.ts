import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PagingEnv } from '../config/paging.env';
import { DatabaseModule } from '../database/database.module';
import { RedisModule, SHARED_REDIS } from '../redis/redis.module';
import { SharedRedis } from '../redis/shared-redis';
import { Client } from './client.entity';
import { ClientsController } from './clients.controller';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';
import { CountCache } from './count-cache';
import { SharedCounts } from './shared-counts';

@Module({
  imports: [DatabaseModule, RedisModule, TypeOrmModule.forFeature([Client])],
  controllers: [ClientsController],
  providers: [
    ClientsService,
    ClientsRepository,
    {
      provide: CountCache,
      inject: [PagingEnv, SHARED_REDIS],
      // With Redis, the pods share their totals; without, each process counts its own.
      useFactory: ({ COUNT_CACHE_TTL_MS }: PagingEnv, redis: SharedRedis | null) => {
        if (!redis) return new CountCache(COUNT_CACHE_TTL_MS);
        const shared = new SharedCounts(redis, COUNT_CACHE_TTL_MS);
        return new CountCache(COUNT_CACHE_TTL_MS, undefined, undefined, (key, count) =>
          shared.fetch(key, count),
        );
      },
    },
  ],
})
export class ClientsModule {}
