import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { KeysEnv } from '../config/keys.env';
import { OperationsEnv } from '../config/operations.env';
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

/** Structured request and application logs through nestjs-pino. */
@Module({
  imports: [
    LogDestinationModule,
    LoggerModule.forRootAsync({
      imports: [LogDestinationModule],
      inject: [OperationsEnv, KeysEnv, LOG_DESTINATION],
      useFactory: (operations: OperationsEnv, keys: KeysEnv, destination: DestinationStream) =>
        loggerParams(
          {
            level: operations.LOG_LEVEL,
            format: operations.LOG_FORMAT,
            apiKeys: keys.API_KEYS ?? [],
          },
          destination,
        ),
    }),
  ],
})
export class LoggingModule {}
