import { Expose } from 'class-transformer';
import { IsIn, ValidateBy } from 'class-validator';
import { WholeMilliseconds } from './env-decorators';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

function isInstalled(module: string): boolean {
  try {
    require.resolve(module);
    return true;
  } catch {
    return false;
  }
}

/** Logs, probes and shutdown. */
export class OperationsEnv {
  @Expose()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  // JSON lines for log collectors; `npm start` sets pretty for people.
  @Expose()
  @IsIn(LOG_FORMATS, { message: `LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}` })
  @ValidateBy(
    {
      name: 'printerInstalled',
      validator: { validate: (format) => format !== 'pretty' || isInstalled('pino-pretty') },
    },
    {
      message:
        'LOG_FORMAT=pretty needs pino-pretty, a development dependency a production install leaves out: use json',
    },
  )
  LOG_FORMAT: LogFormat = 'json';

  @WholeMilliseconds(1)
  HEALTH_TIMEOUT_MS = 1000;

  // After SIGTERM: how long the server keeps accepting (while load balancers see the failed
  // readiness and stop routing here), then how long in-flight requests get to finish.
  @WholeMilliseconds(0)
  SHUTDOWN_DRAIN_DELAY_MS = 5000;

  @WholeMilliseconds(1)
  SHUTDOWN_TIMEOUT_MS = 15000;
}
