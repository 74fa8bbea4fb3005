import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PagingEnv } from '../config/paging.env';
import { DatabaseModule } from '../database/database.module';
import { Client } from './client.entity';
import { ClientsController } from './clients.controller';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';
import { CountCache } from './count-cache';

@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([Client])],
  controllers: [ClientsController],
  providers: [
    ClientsService,
    ClientsRepository,
    {
      provide: CountCache,
      inject: [PagingEnv],
      useFactory: (env: PagingEnv) => new CountCache(env.COUNT_CACHE_TTL_MS),
    },
  ],
})
export class ClientsModule {}
