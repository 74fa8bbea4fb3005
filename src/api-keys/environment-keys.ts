import { isPlaceholder } from '../config/placeholder-secret';
import { hashApiKey } from './api-key-format';

// Hex digits of a key's digest in its id: 32 bits tell keys apart, and of a key of 32 random
// characters or more, as the production start demands, they tell nothing usable.
const ID_DIGITS = 8;

/** The keys of API_KEYS, held by their digests (hashApiKey), never as given. */
export class ApiKeys {
  private readonly ids: Map<string, string>;

  constructor(keys: readonly string[]) {
    this.ids = new Map(
      keys.map(hashApiKey).map((digest) => [digest, `env-${digest.slice(0, ID_DIGITS)}`]),
    );
  }

  /**
   * The key's id (`env-` and the start of its digest), or undefined: it names the key in logs
   * and rate limits without the key, and stays the same wherever the key is listed, so a
   * rotation neither renames a key nor gives its id to another.
   */
  idOf(candidate: string): string | undefined {
    return this.ids.get(hashApiKey(candidate));
  }

  get size(): number {
    return this.ids.size;
  }
}

export const MIN_PRODUCTION_KEY_LENGTH = 32;

/** Starts every key `npm start` makes, so that one copied into production is recognised. */
export const DEMO_KEY_PREFIX = 'demo_';

/**
 * Example keys once shipped with the project (docs, compose, .env.example, manifests, examples,
 * clients): public, so never valid in production. A test scans those files and fails on any
 * example that no rule below refuses.
 */
export const EXAMPLE_API_KEYS: readonly string[] = [
  'dev-key-change-me',
  'change-me-key-1',
  'change-me-key-2',
  'demo_RG7qMaAVsJik2EzwH8jI6oYjPSpU6dT-', // README.md, the output of `npm start`
];

/**
 * Why each API_KEYS entry is unfit for production: too short, a placeholder, a published example
 * or a development demo key. Entries are named by position (1-based), never printed.
 */
export function weakApiKeyProblems(keys: readonly string[]): string[] {
  return keys.flatMap((key, index) => {
    const entry = `API_KEYS entry ${index + 1}`;
    if (key.length < MIN_PRODUCTION_KEY_LENGTH)
      return [`${entry} is shorter than ${MIN_PRODUCTION_KEY_LENGTH} characters`];
    if (isPlaceholder(key))
      return [`${entry} is a placeholder (contains "change-me" or a variant)`];
    if (EXAMPLE_API_KEYS.includes(key))
      return [`${entry} is an example key published with the project`];
    // Only the development start makes such keys; each checkout keeps its own, unlisted here.
    if (key.startsWith(DEMO_KEY_PREFIX))
      return [`${entry} is a development demo key (starts with "${DEMO_KEY_PREFIX}")`];
    return [];
  });
}
