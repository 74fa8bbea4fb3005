import { hash, randomBytes } from 'node:crypto';

// A fixed, greppable prefix lets secret scanners find leaked keys; the rest is base62.
export const KEY_PREFIX = 'lcapi_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// The first IDENTIFIER_LENGTH characters are shown by `keys list`; the 43 after them stay
// secret and alone carry 43 × log2(62) ≈ 256 bits.
const IDENTIFIER_LENGTH = 8;
const SECRET_LENGTH = 43;
const BODY_LENGTH = IDENTIFIER_LENGTH + SECRET_LENGTH;
export const MANAGED_KEY_PATTERN = new RegExp(`${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}`);
const WHOLE_KEY = new RegExp(`^${MANAGED_KEY_PATTERN.source}$`);

/** A new random key: `lcapi_` and 51 base62 characters, drawn without modulo bias. */
export function generateApiKey(): string {
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: bytes at or above it would favour the first characters, so skip them.
      if (byte < 248 && body.length < BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX + body;
}

export function isManagedKey(candidate: string): boolean {
  return WHOLE_KEY.test(candidate);
}

/** The non-secret part stored and shown to identify a key, e.g. `lcapi_Ab3dE5gH`. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + IDENTIFIER_LENGTH);
}

/**
 * A key's SHA-256, in hex: keys carry 256 random bits, so a plain SHA-256 is as strong as a slow
 * password hash here. Keys are found by this digest in a Map, whose timing depends on the
 * digest alone and so reveals nothing about any known key, not even its length. (Hex, because
 * a string digest costs a third of a Buffer's: no backing store to allocate.)
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key);
}
