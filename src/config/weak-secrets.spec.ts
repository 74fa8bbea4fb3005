import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  DEMO_KEY_PREFIX,
  EXAMPLE_API_KEYS,
  EXAMPLE_CURSOR_SECRET,
  EXAMPLE_CURSOR_SECRETS,
  weakApiKeyProblems,
  weakCursorSecretProblems,
} from './weak-secrets';

// Walked rather than asked of git, so that it also runs in copies of the tree (mutation testing).
const NOT_SHIPPED = new Set([
  'node_modules',
  '.git',
  '.stryker-tmp',
  'reports',
  'dist',
  'coverage',
]);
const SHOWN = /(\.md|\.ya?ml|^\.env\.example|^openapi\.json)$|^(examples|deploy|clients)\//;
const shippedFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory()) return NOT_SHIPPED.has(entry.name) ? [] : shippedFiles(path);
    return SHOWN.test(path) ? [path] : [];
  });

describe('weakApiKeyProblems (the production start)', () => {
  const strong = 'k3Y7qPz9WbN2Hd8sLm4TfQ1xVc6RjE0uGa5o';

  it('names each unfit entry by position, never by value', () => {
    const problems = weakApiKeyProblems([
      strong,
      'tiny-key',
      `${strong}-change-me`,
      `${strong}-CHANGE-ME`,
      `changeme${strong}`,
      `${strong}_Change_Me`,
      ...EXAMPLE_API_KEYS,
    ]);
    expect(problems.slice(0, 5)).toEqual([
      'API_KEYS entry 2 is shorter than 32 characters',
      'API_KEYS entry 3 is a placeholder (contains "change-me" or a variant)',
      'API_KEYS entry 4 is a placeholder (contains "change-me" or a variant)',
      'API_KEYS entry 5 is a placeholder (contains "change-me" or a variant)',
      'API_KEYS entry 6 is a placeholder (contains "change-me" or a variant)',
    ]);
    expect(problems).toHaveLength(5 + EXAMPLE_API_KEYS.length);
    expect(problems.join()).not.toContain('tiny-key');
  });

  it('accepts keys of 32 characters and more', () => {
    expect(weakApiKeyProblems([strong, strong.slice(0, 32)])).toEqual([]);
  });

  it('refuses keys with too few distinct characters to have been generated', () => {
    expect(weakApiKeyProblems([strong, 'a'.repeat(32), '0123456789'.slice(1).repeat(4)])).toEqual([
      'API_KEYS entry 2 has fewer than 10 distinct characters: generate one, e.g. openssl rand -base64 48',
      'API_KEYS entry 3 has fewer than 10 distinct characters: generate one, e.g. openssl rand -base64 48',
    ]);
  });

  it.each([
    ['01234567890123456789012345678901', 'is a short pattern repeated'],
    ['Se7ret-K3y!Se7ret-K3y!Se7ret-K3y!', 'is a short pattern repeated'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef', 'is mostly one run of consecutive characters'],
    ['zyxwvutsrqponmlkjihgfedcba987654', 'is mostly one run of consecutive characters'],
    ['key-0123456789abcdefghijklmnopqrs', 'is mostly one run of consecutive characters'],
  ])('refuses %j, too plain to have been generated', (key, problem) => {
    expect(weakApiKeyProblems([key])).toEqual([
      `API_KEYS entry 1 ${problem}: generate one, e.g. openssl rand -base64 48`,
    ]);
  });

  // Made by hand, yet no obvious sequence: not refused as one (the runs are each under half).
  it('accepts a key holding shorter runs', () => {
    expect(weakApiKeyProblems(['ops-cursor-secret-0123456789abcdefg'])).toEqual([]);
  });

  // Random text is none of these: generated keys of every length the docs suggest pass.
  it('accepts generated keys, hex and base64, of every length', () => {
    for (let bytes = 16; bytes <= 64; bytes++)
      for (const encoding of ['hex', 'base64', 'base64url'] as const) {
        const key = randomBytes(bytes).toString(encoding);
        if (key.length >= 32) expect(weakApiKeyProblems([key])).toEqual([]);
      }
  });

  const readmeKey = 'demo_RG7qMaAVsJik2EzwH8jI6oYjPSpU6dT-';

  it('refuses the demo key README.md shows as an example', () => {
    expect(weakApiKeyProblems([readmeKey])).toEqual([
      'API_KEYS entry 1 is an example key published with the project',
    ]);
  });

  it('refuses any key of the development start, made as npm start makes it', () => {
    const demoKey = `${DEMO_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    expect(weakApiKeyProblems([demoKey])).toEqual([
      'API_KEYS entry 1 is a development demo key (starts with "demo_")',
    ]);
  });

  // Whatever key the shipped files show is public: one set or sent, or one of a key's prefixes.
  const SHOWN_KEY =
    /(?:API_KEYS?\s*[=:]\s*|apiKey\s*:\s*|--api-key[=\s]+|Bearer\s+)['"]?([\w.~+/=,-]+)|\b((?:demo|lcapi)_[\w-]+)/g;
  const keysShownIn = (text: string): string[] =>
    [...text.matchAll(SHOWN_KEY)].flatMap(([, listed, prefixed]) =>
      (listed ?? prefixed).split(',').filter((key) => key !== ''),
    );

  it('finds the keys a document shows', () => {
    const text = [
      "API_KEYS=a-b,c\n  API_KEYS: 'x.y'\ncurl -H 'Bearer tok=' $KEY",
      "Demo key:  demo_x-Y\napiKey: 'k1', --api-key k2 (lcapi_Ab3…)",
    ].join('\n');
    expect(keysShownIn(text)).toEqual([
      'a-b',
      'c',
      'x.y',
      'tok=',
      'demo_x-Y',
      'k1',
      'k2',
      'lcapi_Ab3',
    ]);
  });

  it('refuses every key shown in the files shipped with the project', () => {
    const shipped = shippedFiles('.');
    expect(shipped).toEqual(
      expect.arrayContaining(['.env.example', 'docker-compose.yml', 'README.md', 'openapi.json']),
    );
    const shown = shipped.flatMap((file) => keysShownIn(readFileSync(file, 'utf8')));
    expect(shown).toContain(readmeKey);
    const accepted = shown.filter((key) => weakApiKeyProblems([key]).length === 0);
    expect(accepted).toEqual([]);
  });
});

describe('weakCursorSecretProblems', () => {
  it('accepts generated secrets, and no secret at all', () => {
    expect(
      weakCursorSecretProblems({
        CURSOR_SECRET: 'jX9oR3zq0vS1mKcQe7B5yTn2LwHfA8uD4pGiZ6rVs0E=',
        CURSOR_SECRET_PREVIOUS: 'prod-cursor-secret-0123456789abcdef',
      }),
    ).toEqual([]);
    expect(weakCursorSecretProblems({})).toEqual([]);
  });

  it('refuses the secret the documentation signs its example cursors with', () => {
    expect(weakCursorSecretProblems({ CURSOR_SECRET_PREVIOUS: EXAMPLE_CURSOR_SECRET })).toEqual([
      'CURSOR_SECRET_PREVIOUS is an example secret published with the project',
    ]);
  });

  // As for keys: whatever secret a shipped file sets is public.
  it('refuses every cursor secret shown in the files shipped with the project', () => {
    const shown = shippedFiles('.').flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /CURSOR_SECRET(?:_PREVIOUS)?[ \t]*[=:][ \t]*['"]?([^\s'"$]+)/g,
        ),
      ].map(([, secret]) => secret),
    );
    const secrets = [...new Set([...shown, ...EXAMPLE_CURSOR_SECRETS])];
    expect(
      secrets.filter((secret) => weakCursorSecretProblems({ CURSOR_SECRET: secret }).length === 0),
    ).toEqual([]);
  });

  it.each([
    ['CURSOR_SECRET', '0123456789'.repeat(4), 'is a short pattern repeated'],
    ['CURSOR_SECRET', 'abcdefghijklmnopqrstuvwxyz0123456789', 'is mostly one run'],
    ['CURSOR_SECRET', 'change-me-change-me-change-me-change-me', 'is a placeholder'],
    ['CURSOR_SECRET', 'CHANGEME'.repeat(5), 'is a placeholder'],
    ['CURSOR_SECRET', 'xK9_change_me_0123456789abcdef', 'is a placeholder'],
    ['CURSOR_SECRET', ' '.repeat(35), 'has fewer than 10 distinct characters'],
    ['CURSOR_SECRET_PREVIOUS', 'ab'.repeat(20), 'has fewer than 10 distinct characters'],
  ])('refuses %s=%j, naming it without its value', (name, secret, problem) => {
    const problems = weakCursorSecretProblems({ [name]: secret });
    expect(problems).toEqual([expect.stringContaining(`${name} ${problem}`)]);
    expect(problems.join()).not.toContain(secret);
  });
});
