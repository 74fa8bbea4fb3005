import { Expose, plainToInstance, Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsDefined,
  IsIn,
  IsInt,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

const parseInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

// Comma-separated lists (CONTRACT §4: API keys, so they can be rotated); blanks are ignored.
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

/** What the migration CLI needs: the database part of CONTRACT §5. */
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

/** The environment of CONTRACT §5, validated once at boot. */
export class Env extends DatabaseEnv {
  @Expose()
  @Transform(parseInteger)
  @IsInt({ message: 'PORT must be an integer from 0 to 65535' })
  @Min(0, { message: 'PORT must be an integer from 0 to 65535' })
  @Max(65535, { message: 'PORT must be an integer from 0 to 65535' })
  PORT = 3000;

  @Expose()
  @IsDefined({ message: 'API_KEYS is required (comma-separated API keys)' })
  @Transform(parseKeyList)
  @ArrayNotEmpty({ message: 'API_KEYS must list at least one key' })
  @Matches(/^\S+$/, { each: true, message: 'API_KEYS keys must not contain whitespace' })
  API_KEYS!: string[];

  @Expose()
  @Transform(parseInteger)
  @IsInt(wholeMilliseconds('COUNT_CACHE_TTL_MS', 0))
  @Min(0, wholeMilliseconds('COUNT_CACHE_TTL_MS', 0))
  COUNT_CACHE_TTL_MS = 2000;

  // Issue 4, item 8: when set, every read goes to one of these (streaming) replicas.
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
