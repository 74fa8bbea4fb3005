import { createHash } from 'node:crypto';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { CountCache } from './count-cache';
import { DatabaseEnv } from '../config/database.env';
import { HttpEnv } from '../config/http.env';
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
      inject: [HttpEnv],
      useFactory: (env: HttpEnv) => new CountCache(env.COUNT_CACHE_TTL_MS),
    },
    {
      // Every replica of a deployment shares DATABASE_URL, so a cursor issued by one is
      // accepted by all; the key never leaves the process.
      provide: ClientsCursorCodec,
      inject: [DatabaseEnv],
      useFactory: (env: DatabaseEnv) =>
        new ClientsCursorCodec(
          createHash('sha256').update(`clients-cursor\0${env.DATABASE_URL}`).digest(),
        ),
    },
  ],
})
export class ClientsModule {}
