import { isIP } from 'node:net';
import { Expose, Transform } from 'class-transformer';
import { IsOptional, Matches, ValidateBy } from 'class-validator';
import { CommaList, DiffersFrom, ExactBoolean, IntegerFrom } from './env-decorators';
import { parseTrustProxy, TrustProxy, trustProxyProblem } from './trust-proxy';

// Node's default limit on a request's head: its target, header names and values together.
export const MAX_REQUEST_HEAD_BYTES = 16_384;

/** The HTTP server. */
export class HttpEnv {
  @IntegerFrom(0, 65535)
  PORT = 3000;

  // The Prometheus scrape's own port (0: any free port, as the tests use).
  @IntegerFrom(0, 65535)
  @DiffersFrom('PORT', '/metrics has a port of its own', 0)
  METRICS_PORT = 9464;

  // The address METRICS_PORT listens on; unset, every interface (docs/operations.md, Metrics).
  @Expose()
  @IsOptional()
  @ValidateBy({
    name: 'isListenAddress',
    validator: {
      validate: (value) => typeof value === 'string' && isIP(value) !== 0,
      defaultMessage: () =>
        'METRICS_HOST must be an IP address of this host (e.g. 127.0.0.1); unset, every interface',
    },
  })
  METRICS_HOST?: string;

  // Origins allowed to call the API from a browser; unset, CORS is off.
  @IsOptional()
  @CommaList()
  @Matches(/^https?:\/\/[^\s/]+$/, {
    each: true,
    message: 'CORS_ORIGINS must list origins such as https://app.example.com',
  })
  CORS_ORIGINS?: string[];

  // Express's `trust proxy`: behind an ingress, which hops of X-Forwarded-For name the client
  // (per-IP rate limits, logs). Off by default: a client could otherwise forge its address.
  @Expose()
  @Transform(parseTrustProxy)
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value) => trustProxyProblem(value) === undefined,
      defaultMessage: (args) => trustProxyProblem(args?.value) as string,
    },
  })
  TRUST_PROXY: TrustProxy = false;

  // The Server-Timing header of data responses (docs/api.md, Server-Timing).
  @ExactBoolean()
  SERVER_TIMING = true;
}
