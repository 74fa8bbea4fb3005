import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiKeyGuard } from './auth/api-key.guard';
import { AuthModule } from './auth/auth.module';
import { ClientsModule } from './clients/clients.module';
import { ProblemDetailsFilter } from './http/problem-details.filter';
import { StrictQueryPipe } from './http/strict-query.pipe';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { LinksModule } from './links/links.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';

// Every global guard, pipe and filter, in one place.
@Module({
  providers: [
    { provide: APP_FILTER, useClass: ProblemDetailsFilter },
    { provide: APP_PIPE, useClass: StrictQueryPipe },
    // Guards run in this order: the rate limit first, so failed keys are throttled too.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
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
        DatabaseModule,
        RateLimitModule,
        AuthModule,
        HealthModule,
        MetricsModule,
        LinksModule,
        ClientsModule,
      ],
    };
  }
}
