import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino, { DestinationStream } from 'pino';
import { KeysEnv } from '../config/keys.env';
import { OperationsEnv } from '../config/operations.env';
import { loggerParams } from './logger-params';

/** Where JSON log lines go: stdout. Tests override it to capture the lines. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

@Global()
@Module({
  providers: [
    // Synchronous, so the lines written just before a process.exit are not lost.
    { provide: LOG_DESTINATION, useFactory: () => pino.destination({ dest: 1, sync: true }) },
  ],
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
