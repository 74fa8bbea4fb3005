import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DatabaseEnv } from './database.env';
import { HttpEnv } from './http.env';
import { KeysEnv } from './keys.env';
import { LimitsEnv } from './limits.env';
import { OperationsEnv } from './operations.env';
import { PagingEnv } from './paging.env';
import { RateLimitEnv } from './rate-limit.env';
import { RedisEnv } from './redis.env';
import { readSecretFiles } from './secret-files';

/** The environment by concern; each section is injected where it is used (config.module.ts). */
export const ENV_SECTIONS = [
  KeysEnv,
  PagingEnv,
  DatabaseEnv,
  HttpEnv,
  RateLimitEnv,
  RedisEnv,
  LimitsEnv,
  OperationsEnv,
] as const;

const API_KEYS_REQUIRED =
  'API_KEYS is required (comma-separated API keys) unless DATABASE_URL holds managed keys';

/**
 * Validates the environment, throwing one error that names every missing or invalid variable
 * (and `otherProblems`, the production start's own). An empty value counts as unset, so `PORT=`
 * means the default. Secrets given as files (`<NAME>_FILE`) are read into `raw` first.
 */
export function validateEnvSections(
  raw: Record<string, unknown>,
  otherProblems: string[] = [],
): object[] {
  const problems = readSecretFiles(raw);
  const sections = ENV_SECTIONS.map((shape: new () => object) =>
    parseSection(shape, raw, problems),
  );
  // The keys in the database are the other source; without DATABASE_URL there is none. With
  // it, the boot checks the table (ApiKeyVerifier).
  if (present(raw).API_KEYS === undefined && present(raw).DATABASE_URL === undefined) {
    problems.unshift(API_KEYS_REQUIRED);
  }
  problems.push(...otherProblems);
  if (problems.length > 0) {
    throw new Error(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
  }
  return sections;
}

export function validateDatabaseEnv(raw: Record<string, unknown>): DatabaseEnv {
  const problems = readSecretFiles(raw);
  const env = parseSection(DatabaseEnv, raw, problems);
  if (problems.length > 0) {
    throw new Error(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
  }
  return env;
}

const present = (raw: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
  );

function parseSection<T extends object>(
  shape: new () => T,
  raw: Record<string, unknown>,
  problems: string[],
): T {
  const env = plainToInstance(shape, present(raw), {
    excludeExtraneousValues: true,
    exposeDefaultValues: true,
  });
  for (const error of validateSync(env)) problems.push(Object.values(error.constraints ?? {})[0]);
  return env;
}
