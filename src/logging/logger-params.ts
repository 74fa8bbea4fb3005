import { Params } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { Options } from 'pino-http';
import { LogFormat, LogLevel } from '../config/operations.env';
import { traceLogFields } from '../telemetry/tracing';
import { secretMask } from './secret-mask';

/**
 * The application's root logger. nestjs-pino builds it through pino-http, but mounts no
 * request middleware (`forRoutes: []`): the access log is ours (access-log.ts).
 */
export function loggerParams(
  { level, format, apiKeys }: { level: LogLevel; format: LogFormat; apiKeys: readonly string[] },
  destination: DestinationStream,
): Params {
  const mask = secretMask(apiKeys);
  const options: Options = {
    level,
    // Every argument of every log call is masked, so no line can carry a key.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => mask(arg)) as Parameters<typeof method>);
      },
    },
    // With tracing on, every line written while a request is served names its trace and span.
    ...(traceLogFields && { mixin: traceLogFields }),
    // No line logs headers; this is the net if a future one does.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: '[Redacted]',
    },
    ...(format === 'pretty' && {
      transport: { target: 'pino-pretty', options: { singleLine: true } },
    }),
  };
  return {
    pinoHttp: format === 'pretty' ? options : [options, destination],
    forRoutes: [],
  };
}
