import { renderLink } from './link.renderer';

describe('renderLink', () => {
  it('renders the contract fields in order, the id escaped as JSON', () => {
    const id = 'a"b\\c\u0001 é 🙂';
    const text = renderLink({
      id,
      createdAt: '"2026-01-02T03:04:05"',
      updatedAt: '"2026-01-02T03:04:06.5"',
    });
    expect(JSON.parse(text)).toEqual({
      id,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:06.500Z',
    });
    expect(Object.keys(JSON.parse(text))).toEqual(['id', 'createdAt', 'updatedAt']);
  });
});
