import { createHash } from 'node:crypto';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { CountCache } from './count-cache';
import { Env } from '../config/env';
import { ClientsCursorCodec } from './clients-cursor';
import { Client } from './client.entity';
import { ClientsController } from './clients.controller';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';

@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([Client])],
  controllers: [ClientsController],
  providers: [
    ClientsService,
    ClientsRepository,
    {
      provide: CountCache,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) =>
        new CountCache(config.get('COUNT_CACHE_TTL_MS')),
    },
    {
      // Every replica of a deployment shares DATABASE_URL, so a cursor issued by one is
      // accepted by all; the key never leaves the process.
      provide: ClientsCursorCodec,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) =>
        new ClientsCursorCodec(
          createHash('sha256')
            .update(`clients-cursor\0${config.get('DATABASE_URL')}`)
            .digest(),
        ),
    },
  ],
})
export class ClientsModule {}
