import { KEY_PREFIX, MANAGED_KEY_PATTERN } from '../api-keys/api-key-format';

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
  // What every secret above contains, found several times faster than the secrets themselves
  // (whose lookbehind is tried at every position): most strings hold none of it.
  const secretMarks = new RegExp([`bearer`, KEY_PREFIX, ...known].join('|'), 'i');
  const mask = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') {
      return secretMarks.test(value) ? value.replace(secrets, CENSOR) : value;
    }
    if (value instanceof Error) {
      return Object.assign(Object.create(Object.getPrototypeOf(value)), value, {
        message: mask(value.message),
        stack: mask(value.stack),
      });
    }
    if (depth < 3 && isPlainObject(value)) {
      // Copied only when something in it was masked: most lines (every request's) hold no
      // secret, and are passed on as they are rather than rebuilt.
      let copy: Record<string, unknown> | undefined;
      for (const name in value) {
        const inner = value[name];
        const masked = mask(inner, depth + 1);
        if (masked !== inner) (copy ??= { ...value })[name] = masked;
      }
      return copy ?? value;
    }
    return value;
  };
  return mask;
}

/** Plain objects only: requests, responses and streams are left to pino's serializers. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
