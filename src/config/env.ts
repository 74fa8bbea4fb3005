import { Expose, plainToInstance, Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateIf,
  validateSync,
} from 'class-validator';

const parseInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

// Comma-separated lists (docs/api.md, Authentication: API keys, so they can be rotated); blanks are ignored.
const parseKeyList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== '')
    : value;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const wholeMilliseconds = (name: string, min: number) => ({
  message: `${name} must be a whole number of milliseconds, ${min} or more`,
});

const positiveCount = (name: string) => ({
  message: `${name} must be a whole number of requests, 1 or more`,
});

/** What the migration CLI needs: the database part of docs/operations.md, Configuration. */
export class DatabaseEnv {
  @Expose()
  @IsDefined({ message: 'DATABASE_URL is required' })
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL!: string;

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('DATABASE_TIMEOUT_MS', 1))
  @Min(1, wholeMilliseconds('DATABASE_TIMEOUT_MS', 1))
  DATABASE_TIMEOUT_MS = 5000;
}

/** The environment of docs/operations.md, Configuration, validated once at boot. */
export class Env extends DatabaseEnv {
  @Expose()
  @Transform(parseInteger)
  @IsInt({ message: 'PORT must be an integer from 0 to 65535' })
  @Min(0, { message: 'PORT must be an integer from 0 to 65535' })
  @Max(65535, { message: 'PORT must be an integer from 0 to 65535' })
  PORT = 3000;

  // docs/operations.md, Configuration: the keys in the database are the other source; without DATABASE_URL there is
  // none, so API_KEYS is then required. With it, the boot checks the table (ApiKeyVerifier).
  @Expose()
  @ValidateIf((env: Env) => env.API_KEYS !== undefined || env.DATABASE_URL === undefined)
  @IsDefined({
    message:
      'API_KEYS is required (comma-separated API keys) unless DATABASE_URL holds managed keys',
  })
  @Transform(parseKeyList)
  @ArrayNotEmpty({ message: 'API_KEYS must list at least one key' })
  @Matches(/^\S+$/, { each: true, message: 'API_KEYS keys must not contain whitespace' })
  API_KEYS?: string[];

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('COUNT_CACHE_TTL_MS', 0))
  @Min(0, wholeMilliseconds('COUNT_CACHE_TTL_MS', 0))
  COUNT_CACHE_TTL_MS = 2000;

  // How long a database key lookup is cached, so also how late a revocation may take effect.
  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('KEY_CACHE_TTL_MS', 100))
  @Min(100, wholeMilliseconds('KEY_CACHE_TTL_MS', 100))
  KEY_CACHE_TTL_MS = 10000;

  @Expose()
  @Transform(parseInteger)
  @IsInt(positiveCount('RATE_LIMIT_PER_KEY'))
  @Min(1, positiveCount('RATE_LIMIT_PER_KEY'))
  // Defaults are flood guards (1,000 and 100 requests/s), not quotas: a busy sync job or a
  // test suite never meets them. Operators set real quotas per deployment.
  RATE_LIMIT_PER_KEY = 60000;

  @Expose()
  @Transform(parseInteger)
  @IsInt(positiveCount('RATE_LIMIT_PER_IP'))
  @Min(1, positiveCount('RATE_LIMIT_PER_IP'))
  RATE_LIMIT_PER_IP = 6000;

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('RATE_LIMIT_WINDOW_MS', 1000))
  @Min(1000, wholeMilliseconds('RATE_LIMIT_WINDOW_MS', 1000))
  RATE_LIMIT_WINDOW_MS = 60000;

  @Expose()
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Expose()
  @Matches(/^[\w:.-]{1,100}$/, { message: 'REDIS_KEY_PREFIX must be 1-100 of [A-Za-z0-9_:.-]' })
  REDIS_KEY_PREFIX = 'links-clients:';

  // Comma-separated origins allowed to call the API from a browser; unset, CORS is off.
  @Expose()
  @IsOptional()
  @Transform(parseKeyList)
  @Matches(/^https?:\/\/[^\s/]+$/, {
    each: true,
    message: 'CORS_ORIGINS must list origins such as https://app.example.com',
  })
  CORS_ORIGINS?: string[];
  // When set, every read goes to one of these (streaming) replicas.
  @Expose()
  @Transform(parseKeyList)
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    each: true,
    message: 'DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs',
  })
  DATABASE_REPLICA_URLS: string[] = [];

  @Expose()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  // JSON lines for log collectors; `npm start` sets pretty for people.
  @Expose()
  @IsIn(LOG_FORMATS, { message: `LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}` })
  LOG_FORMAT: LogFormat = 'json';

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('HEALTH_TIMEOUT_MS', 1))
  @Min(1, wholeMilliseconds('HEALTH_TIMEOUT_MS', 1))
  HEALTH_TIMEOUT_MS = 1000;

  // After SIGTERM: how long the server keeps accepting (while load balancers see the failed
  // readiness and stop routing here), then how long in-flight requests get to finish.
  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('SHUTDOWN_DRAIN_DELAY_MS', 0))
  @Min(0, wholeMilliseconds('SHUTDOWN_DRAIN_DELAY_MS', 0))
  SHUTDOWN_DRAIN_DELAY_MS = 5000;

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('SHUTDOWN_TIMEOUT_MS', 1))
  @Min(1, wholeMilliseconds('SHUTDOWN_TIMEOUT_MS', 1))
  SHUTDOWN_TIMEOUT_MS = 15000;
}

/**
 * Validates the environment, throwing one error that names every missing or invalid variable.
 * An empty value counts as unset, so `PORT=` means the default.
 */
export function validateEnv(raw: Record<string, unknown>): Env {
  return parseEnv(Env, raw);
}

export function validateDatabaseEnv(raw: Record<string, unknown>): DatabaseEnv {
  return parseEnv(DatabaseEnv, raw);
}

function parseEnv<T extends object>(shape: new () => T, raw: Record<string, unknown>): T {
  const present = Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
  );
  const env = plainToInstance(shape, present, {
    excludeExtraneousValues: true,
    exposeDefaultValues: true,
  });
  const errors = validateSync(env);
  if (errors.length > 0) {
    const problems = errors.map((error) => Object.values(error.constraints ?? {})[0]);
    throw new Error(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
  }
  return env;
}
