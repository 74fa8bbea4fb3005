import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Env } from '../config/env';
import { dataSourceOptions } from './data-source';
import { DatabaseReader } from './database-reader';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => ({
        ...dataSourceOptions({
          url: config.get('DATABASE_URL'),
          timeoutMs: config.get('DATABASE_TIMEOUT_MS'),
          replicaUrls: config.get('DATABASE_REPLICA_URLS'),
        }),
        autoLoadEntities: true,
        retryAttempts: 5,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [DatabaseReader],
  exports: [DatabaseReader],
})
export class DatabaseModule {}
