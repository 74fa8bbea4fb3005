import { unboundedYoungGenerationWarning } from './garbage-collection';

describe('unboundedYoungGenerationWarning', () => {
  it.each([
    ['--max-old-space-size=128', []],
    ['--max-old-space-size-percentage=50', []],
    ['--max_old_space_size=128', []],
    [undefined, ['--max-old-space-size=128']],
    ['--enable-source-maps', ['--max-old-space-size=128']],
  ])('warns for an old-space bound alone (NODE_OPTIONS %p, argv %p)', (options, argv) => {
    expect(unboundedYoungGenerationWarning(options, argv)).toMatch(
      /young generation is not: give --max-semi-space-size=8/,
    );
  });

  it.each([
    [undefined, []],
    ['', []],
    ['--enable-source-maps', []],
    ['--max-old-space-size-percentage=50 --max-semi-space-size=8', []],
    ['--max-semi-space-size=16', ['--max-old-space-size=160']],
    ['--max_old_space_size=128 --max_semi_space_size=8', []],
  ])(
    'is silent without an old-space bound or with both (NODE_OPTIONS %p, argv %p)',
    (options, argv) => {
      expect(unboundedYoungGenerationWarning(options, argv)).toBeUndefined();
    },
  );
});
