import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { ClientsModule } from './clients/clients.module';
import { ProblemDetailsFilter } from './common/problem-details.filter';
import { StrictQueryPipe } from './common/strict-query.pipe';
import { validateEnv } from './config/env';
import { DatabaseModule } from './database/database.module';
import { LinksModule } from './links/links.module';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: validateEnv }),
    DatabaseModule,
    AuthModule,
    LinksModule,
    ClientsModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
    { provide: APP_PIPE, useClass: StrictQueryPipe },
  ],
})
export class AppModule {}
