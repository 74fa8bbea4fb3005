import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/**
 * The set of valid keys, held as SHA-256 digests. Comparing fixed-length digests with
 * timingSafeEqual, and always against every key, leaks neither a key's length nor how much of
 * it matched (CONTRACT §4).
 */
export class ApiKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  includes(candidate: string): boolean {
    return this.indexOf(candidate) !== -1;
  }

  /** Position of the key in API_KEYS, or -1; it names the key in rate limits without the key. */
  indexOf(candidate: string): number {
    const candidateDigest = digest(candidate);
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
