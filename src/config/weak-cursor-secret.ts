import { isPlaceholder } from './placeholder-secret';

// Random text of 32 characters or more (`openssl rand -base64 48`) holds far more than this.
const MIN_DISTINCT_CHARACTERS = 10;

/**
 * Why CURSOR_SECRET or CURSOR_SECRET_PREVIOUS is unfit for production, if it is: a placeholder,
 * or too few distinct characters to have been generated (`x` repeated, spaces). Named, never
 * printed.
 */
export function weakCursorSecretProblems(env: Record<string, string | undefined>): string[] {
  return ['CURSOR_SECRET', 'CURSOR_SECRET_PREVIOUS'].flatMap((name) => {
    const secret = env[name];
    if (!secret) return [];
    if (isPlaceholder(secret))
      return [`${name} is a placeholder (contains "change-me" or a variant)`];
    if (new Set(secret).size < MIN_DISTINCT_CHARACTERS) {
      return [
        `${name} has fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters: generate one, e.g. openssl rand -base64 48`,
      ];
    }
    return [];
  });
}
