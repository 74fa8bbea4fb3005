import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { Env } from '../config/env';
import { createLogDestination } from './log-destination';
import { loggerParams } from './logger-params';

/** Where JSON log lines go: stdout. Tests override it to capture the lines. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

@Global()
@Module({
  providers: [{ provide: LOG_DESTINATION, useFactory: () => createLogDestination() }],
  exports: [LOG_DESTINATION],
})
class LogDestinationModule {}

/** Structured request and application logs (issue 4, item 3) through nestjs-pino. */
@Module({
  imports: [
    LogDestinationModule,
    LoggerModule.forRootAsync({
      imports: [LogDestinationModule],
      inject: [ConfigService, LOG_DESTINATION],
      useFactory: (config: ConfigService<Env, true>, destination: DestinationStream) =>
        loggerParams(
          {
            level: config.get('LOG_LEVEL'),
            format: config.get('LOG_FORMAT'),
            apiKeys: config.get('API_KEYS') ?? [],
          },
          destination,
        ),
    }),
  ],
})
export class LoggingModule {}
