import { hashApiKey } from './api-key-format';

// Hex digits of a key's digest in its id: 32 bits tell keys apart, and of a key of 32 random
// characters or more, as the production start demands, they tell nothing usable.
const ID_DIGITS = 8;

/** The keys of API_KEYS, held by their digests (hashApiKey), never as given. */
export class EnvironmentApiKeys {
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
