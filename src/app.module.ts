import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { ChangesModule } from './changes/changes.module';
import { ClientsModule } from './clients/clients.module';
import { ProblemDetailsFilter } from './errors/problem-details.filter';
import { CursorModule } from './query/cursor.module';
import { ReadRequestGuard } from './requests/read-request.guard';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DocsModule } from './docs/docs.module';
import { HealthModule } from './health/health.module';
import { LimitsModule } from './limits/limits.module';
import { LinksModule } from './links/links.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';

// Every global guard and filter, in one place.
@Module({
  providers: [
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
    // Guards run in this order: the rate limit first, so failed keys are throttled too; then
    // the key, before anything else about the request is answered; then what a read may carry.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: ReadRequestGuard },
  ],
})
export class AppModule {
  /**
   * ConfigModule.forRoot validates process.env when it is called, so it is called here, when
   * the app is built, rather than when this file loads: a bad environment then fails the
   * start with one message (docs/operations.md, Configuration), and the dev start can fill the environment first.
   */
  static async forRoot(): Promise<DynamicModule> {
    const config = ConfigModule.forRoot();
    return {
      module: AppModule,
      imports: [
        config,
        LoggingModule,
        CursorModule,
        DatabaseModule,
        LimitsModule,
        RateLimitModule,
        AuthModule,
        HealthModule,
        MetricsModule,
        LinksModule,
        ClientsModule,
        ChangesModule,
        DocsModule,
      ],
    };
  }
}
