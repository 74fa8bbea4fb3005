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
 * The secret the documentation's example cursors are signed with (src/query/example-cursor.ts):
 * published with them, so any cursor it signs could be forged by anyone.
 */
export const EXAMPLE_CURSOR_SECRET = 'example-cursor-secret-for-the-documentation-only';

/**
 * Example cursor secrets shipped with the project (that one, and any a shipped file shows: a
 * test scans them as it does for keys), never valid in production.
 */
export const EXAMPLE_CURSOR_SECRETS: readonly string[] = [EXAMPLE_CURSOR_SECRET];

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
    const plain = plainness(key);
    return plain ? [`${entry} ${plain}`] : [];
  });
}

// Random text of 32 characters or more (`openssl rand -base64 48`) holds far more than this.
const MIN_DISTINCT_CHARACTERS = 10;
const GENERATE = 'generate one, e.g. openssl rand -base64 48';

/**
 * Why a secret is too plain to have been generated, if it is: too few distinct characters
 * (`x` repeated, spaces, `abab…`), a unit repeated (`0123456789` three times and more), or one
 * run of consecutive characters (`abcdef…`, `9876…`) for half of it. Random text of this length
 * is none of these but with odds far below one in a million.
 */
function plainness(secret: string): string | undefined {
  if (new Set(secret).size < MIN_DISTINCT_CHARACTERS)
    return `has fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters: ${GENERATE}`;
  if (isRepeated(secret)) return `is a short pattern repeated: ${GENERATE}`;
  if (isMostlySequential(secret)) return `is mostly one run of consecutive characters: ${GENERATE}`;
  return undefined;
}

/** Whether `secret` is some unit at most half its length, repeated (the last time cut short). */
function isRepeated(secret: string): boolean {
  for (let unit = 1; unit <= secret.length / 2; unit++) {
    let isPeriodic = true;
    for (let i = unit; i < secret.length && isPeriodic; i++)
      isPeriodic = secret[i] === secret[i - unit];
    if (isPeriodic) return true;
  }
  return false;
}

/** Whether a run of consecutive characters, up or down (`abcd…`, `9876…`), is half of it. */
function isMostlySequential(secret: string): boolean {
  let run = 1;
  for (let i = 1; i < secret.length; i++) {
    const step = secret.charCodeAt(i) - secret.charCodeAt(i - 1);
    const isSameStep = i > 1 && step === secret.charCodeAt(i - 1) - secret.charCodeAt(i - 2);
    run = Math.abs(step) !== 1 ? 1 : isSameStep ? run + 1 : 2;
    if (run * 2 >= secret.length) return true;
  }
  return false;
}

/**
 * Why CURSOR_SECRET or CURSOR_SECRET_PREVIOUS is unfit for production, if it is: a placeholder,
 * a published example, or too plain to have been generated. Named, never printed.
 */
export function weakCursorSecretProblems(env: Record<string, string | undefined>): string[] {
  return ['CURSOR_SECRET', 'CURSOR_SECRET_PREVIOUS'].flatMap((name) => {
    const secret = env[name];
    if (!secret) return [];
    if (isPlaceholder(secret))
      return [`${name} is a placeholder (contains "change-me" or a variant)`];
    if (EXAMPLE_CURSOR_SECRETS.includes(secret))
      return [`${name} is an example secret published with the project`];
    const plain = plainness(secret);
    return plain ? [`${name} ${plain}`] : [];
  });
}
