import { MALFORMED_NAMES, parseQuery } from './parse-query';

describe('parseQuery', () => {
  it('decodes as a form: + is a space, percent-escapes decoded', () => {
    expect({ ...parseQuery('a=b+c&d=%2B%20%C3%A9') }).toEqual({ a: 'b c', d: '+ é' });
  });

  it('keeps repeated names as arrays, in order', () => {
    expect({ ...parseQuery('s=1&t=2&s=3&s=4') }).toEqual({ s: ['1', '3', '4'], t: '2' });
  });

  it('keeps names verbatim: no brackets, no prototype tricks', () => {
    const query = parseQuery('a[b]=1&__proto__=2&constructor=3&[c]=4');
    expect(Object.keys(query)).toEqual(['a[b]', '__proto__', 'constructor', '[c]']);
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(query.__proto__).toBe('2');
  });

  it('reads no query (Express gives null or undefined when the URL has no ?) as no parameters', () => {
    expect(Object.keys(parseQuery(null))).toEqual([]);
    expect(Object.keys(parseQuery(undefined))).toEqual([]);
    expect(Object.keys(parseQuery(''))).toEqual([]);
  });

  it('never throws on malformed escapes, reads none as U+FFFD, and lists the values with one', () => {
    const query = parseQuery('a=%ZZ&b=%&c=%E0%A4%A&d=%E2%82%AC&e=%FF&f=%ED%A0%80&%FE=1&g=%25');
    expect({ ...query }).toEqual({
      a: '%ZZ',
      b: '%',
      c: '%E0%A4%A',
      d: '€',
      e: '%FF',
      f: '%ED%A0%80',
      '%FE': '1',
      g: '%',
    });
    expect(query[MALFORMED_NAMES]).toEqual(['a', 'b', 'c', 'e', 'f']);
    expect(parseQuery('d=%E2%82%AC&e=%EF%BF%BD+x')[MALFORMED_NAMES]).toBeUndefined();
  });

  it('decodes as URLSearchParams does wherever the escapes are well formed', () => {
    const text = 'a=1&&b=+x+%2B&c&=v&d==e&%C3%A9=%F0%9F%98%80&a=2&x%20y=z%3D';
    expect({ ...parseQuery(text) }).toEqual({
      ...Object.fromEntries(new URLSearchParams(text)),
      a: ['1', '2'],
    });
  });

  it('reads a name without = as an empty value, and has no key limit', () => {
    expect({ ...parseQuery('flag') }).toEqual({ flag: '' });
    const many = Array.from({ length: 3000 }, (_, i) => `k${i}=1`).join('&');
    expect(Object.keys(parseQuery(many))).toHaveLength(3000);
  });
});
