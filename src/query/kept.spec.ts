import { KEPT, KEPT_LENGTH, remember } from './kept';

describe('remember', () => {
  it('keeps a value under its key, the oldest dropped past KEPT entries', () => {
    const map = new Map<string, number>();
    for (let i = 0; i <= KEPT; i++) expect(remember(map, `key-${i}`, i)).toBe(i);
    expect(map.size).toBe(KEPT);
    expect(map.has('key-0')).toBe(false);
    expect(map.get(`key-${KEPT}`)).toBe(KEPT);
  });

  it('keeps nothing under a key longer than KEPT_LENGTH: no request can fill memory with them', () => {
    const map = new Map<string, string>();
    expect(remember(map, 'x'.repeat(KEPT_LENGTH + 1), 'value')).toBe('value');
    expect(remember(map, 'x'.repeat(KEPT_LENGTH), 'kept')).toBe('kept');
    expect([...map.keys()].map((key) => key.length)).toEqual([KEPT_LENGTH]);
  });
});
