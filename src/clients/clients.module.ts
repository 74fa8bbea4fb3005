import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Counter, Registry } from 'prom-client';
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
      // Registry: provided globally by MetricsModule.
      inject: [PagingEnv, SHARED_REDIS, Registry],
      useFactory: (
        { COUNT_CACHE_TTL_MS: ttlMs }: PagingEnv,
        redis: SharedRedis | null,
        registry: Registry,
      ) => {
        const counts = new Counter({
          name: 'list_clients_counts_total',
          help: 'List Clients totals this process counted in the database',
          registers: [registry],
        });
        // With Redis, the pods share their totals; without, each process counts its own.
        const shared = redis && new SharedCounts(redis, ttlMs);
        return new CountCache(ttlMs, {
          fetch: shared ? (key, count, atLeast) => shared.fetch(key, count, atLeast) : undefined,
          onCount: () => counts.inc(),
        });
      },
    },
  ],
})
export class ClientsModule {}
