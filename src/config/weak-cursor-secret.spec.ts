import { weakCursorSecretProblems } from './weak-cursor-secret';

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

  it.each([
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
