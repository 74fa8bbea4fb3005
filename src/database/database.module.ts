import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseEnv } from '../config/database.env';
import { dataSourceOptions } from './data-source';
import { DatabaseReader } from './database-reader';
import { DatabasePools } from './pools';
import { SchemaAccess } from './schema-access';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [DatabaseEnv],
      useFactory: (env: DatabaseEnv) => ({
        ...dataSourceOptions({
          url: env.DATABASE_URL,
          timeoutMs: env.DATABASE_TIMEOUT_MS,
        }),
        autoLoadEntities: true,
        retryAttempts: 5,
        retryDelay: 1000,
      }),
    }),
  ],
  providers: [DatabasePools, DatabaseReader, SchemaAccess],
  exports: [DatabasePools, DatabaseReader],
})
export class DatabaseModule {}
