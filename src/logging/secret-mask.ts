import { MANAGED_KEY_PATTERN } from '../api-keys/api-key-format';

const CENSOR = '[REDACTED]';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Masks every API key in log output, whatever wrote it: bearer credentials, anything in the
 * managed key format, and the API_KEYS values (docs/api.md, Authentication: the plain key is never logged).
 */
export function secretMask(environmentKeys: readonly string[]): (value: unknown) => unknown {
  const known = [...environmentKeys].sort((a, b) => b.length - a.length).map(escape);
  const secrets = new RegExp(
    [`(?<=bearer\\s+)\\S+`, MANAGED_KEY_PATTERN.source, ...known].join('|'),
    'gi',
  );
  const mask = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return value.replace(secrets, CENSOR);
    if (value instanceof Error) {
      return Object.assign(Object.create(Object.getPrototypeOf(value)), value, {
        message: mask(value.message),
        stack: mask(value.stack),
      });
    }
    // Plain objects only: requests, responses and streams are left to pino's serializers.
    const plain =
      value &&
      typeof value === 'object' &&
      [Object.prototype, null].includes(Object.getPrototypeOf(value));
    if (plain && depth < 3) {
      return Object.fromEntries(
        Object.entries(value).map(([name, inner]) => [name, mask(inner, depth + 1)]),
      );
    }
    return value;
  };
  return mask;
}
