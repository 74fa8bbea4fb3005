import { timingSafeEqual } from 'node:crypto';
import { hashApiKey } from './api-key-format';

/**
 * The set of valid keys, held as SHA-256 digests. Comparing fixed-length digests with
 * timingSafeEqual, and always against every key, leaks neither a key's length nor how much of
 * it matched (docs/api.md, Authentication).
 */
export class ApiKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(hashApiKey);
  }

  /** Position of the key in API_KEYS, or -1; it names the key in rate limits without the key. */
  indexOf(candidate: string): number {
    const candidateDigest = hashApiKey(candidate);
    let found = -1;
    this.digests.forEach((known, index) => {
      if (timingSafeEqual(known, candidateDigest)) found = index;
    });
    return found;
  }

  get size(): number {
    return this.digests.length;
  }
}

export const MIN_PRODUCTION_KEY_LENGTH = 32;

/**
 * Example keys once shipped with the project (docs, compose, .env.example, manifests): public,
 * so never valid in production. A test scans the repository and fails on any example missing
 * here that the length and `change-me` rules do not already refuse.
 */
export const EXAMPLE_API_KEYS: readonly string[] = [
  'dev-key-change-me',
  'change-me-key-1',
  'change-me-key-2',
];

/**
 * Why each API_KEYS entry is unfit for production: too short, a placeholder or a published
 * example. Entries are named by position (1-based), never printed.
 */
export function weakApiKeyProblems(keys: readonly string[]): string[] {
  return keys.flatMap((key, index) => {
    const entry = `API_KEYS entry ${index + 1}`;
    if (key.length < MIN_PRODUCTION_KEY_LENGTH)
      return [`${entry} is shorter than ${MIN_PRODUCTION_KEY_LENGTH} characters`];
    if (/change-me/i.test(key)) return [`${entry} is a placeholder (contains "change-me")`];
    if (EXAMPLE_API_KEYS.includes(key))
      return [`${entry} is an example key published with the project`];
    return [];
  });
}
