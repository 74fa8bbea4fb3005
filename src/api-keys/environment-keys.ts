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

  includes(candidate: string): boolean {
    return this.indexOf(candidate) !== -1;
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
