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
    const candidateDigest = digest(candidate);
    let found = false;
    for (const known of this.digests) {
      found = timingSafeEqual(known, candidateDigest) || found;
    }
    return found;
  }
}
