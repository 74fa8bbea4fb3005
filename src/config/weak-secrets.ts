// What the production start refuses as a secret: placeholders, published examples, demo keys
// and values too plain to have been generated. Named, never printed.

/** Whether a secret still carries an example's placeholder: change-me, changeme, CHANGE_ME. */
function isPlaceholder(secret: string): boolean {
  return /change[-_]?me/i.test(secret);
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
 * Why each API_KEYS entry is unfit for production: too short, a placeholder, a published example,
 * a development demo key or too plain to have been generated. Entries are named by position (1-based), never printed.
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
    if (isTooPlain(key)) return [`${entry} ${TOO_PLAIN}`];
    return [];
  });
}

// Random text of 32 characters or more (`openssl rand -base64 48`) holds far more than this.
const MIN_DISTINCT_CHARACTERS = 10;
const TOO_PLAIN = `has fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters: generate one, e.g. openssl rand -base64 48`;

/** Too few distinct characters to have been generated: `x` repeated, spaces, `abab…`. */
const isTooPlain = (secret: string) => new Set(secret).size < MIN_DISTINCT_CHARACTERS;

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
    if (isTooPlain(secret)) return [`${name} ${TOO_PLAIN}`];
    return [];
  });
}
