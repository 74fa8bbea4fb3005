import { concerns, RecentChanges } from './recent-changes';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000000Z`;
const stamped = (entries: [string, number][]) =>
  new Map(entries.map(([link, second]) => [link, at(second)]));
const none = new Map<string, string>();

describe('concerns', () => {
  const changed = stamped([
    ['link-a', 10],
    ['link-b', 20],
  ]);

  it('is true for a row of a followed link stamped at or after what the poll read', () => {
    expect(concerns(changed, at(20), new Set(['link-b']))).toBe(true);
    expect(concerns(changed, at(15), undefined)).toBe(true);
  });

  it('is false for another link, or for rows stamped before what the poll read', () => {
    expect(concerns(changed, at(0), new Set(['link-c']))).toBe(false);
    expect(concerns(changed, at(11), new Set(['link-a']))).toBe(false);
    expect(concerns(changed, at(21), undefined)).toBe(false);
    expect(concerns(none, at(0), undefined)).toBe(false);
  });

  it('looks up from the smaller side, either way', () => {
    const many = new Set(Array.from({ length: 100 }, (_, n) => `link-${n}`).concat('link-b'));
    expect(concerns(changed, at(0), many)).toBe(true);
    expect(concerns(stamped([['link-z', 5]]), at(0), many)).toBe(false);
  });

  it('is true whatever was read when every link may have changed', () => {
    expect(concerns('all', at(59), new Set(['link-a']))).toBe(true);
  });
});

describe('RecentChanges', () => {
  it('tells a poll of a change it may not have read, on its feed and link only', () => {
    const recent = new RecentChanges(at(0));
    recent.record(at(10), { links: none, clients: stamped([['link-a', 5]]) });
    expect(recent.position).toBe(at(10));
    expect(recent.hasSince(at(3), 'clients', new Set(['link-a']))).toBe(true);
    expect(recent.hasSince(at(6), 'clients', new Set(['link-a']))).toBe(false);
    expect(recent.hasSince(at(3), 'clients', new Set(['link-b']))).toBe(false);
    expect(recent.hasSince(at(3), 'links', undefined)).toBe(false);
  });

  it('counts a span read as a whole (all) as a change for anyone who read before its end', () => {
    const recent = new RecentChanges(at(0));
    recent.record(at(10), { links: 'all', clients: none });
    expect(recent.hasSince(at(9), 'links', new Set(['link-x']))).toBe(true);
    expect(recent.hasSince(at(10), 'links', new Set(['link-x']))).toBe(false);
  });

  it('tells a poll that read before anything it keeps to read again', () => {
    const recent = new RecentChanges(at(5));
    expect(recent.hasSince(at(4), 'clients', undefined)).toBe(true);
    for (let second = 6; second < 60; second++) {
      recent.record(at(second), { links: stamped([['link-a', second - 1]]), clients: none });
    }
    expect(recent.hasSince(at(4), 'links', new Set(['link-b']))).toBe(true);
    expect(recent.hasSince(at(30), 'links', new Set(['link-b']))).toBe(false);
  });

  it('forgets the oldest spans past its bound', () => {
    const recent = new RecentChanges('-infinity');
    for (let n = 1; n <= 600; n++) {
      const to = `2026-01-01T00:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000000Z`;
      recent.record(to, { links: stamped([['link-a', 0]]), clients: none });
      recent.record(`${to.slice(0, -2)}5Z`, { links: none, clients: none });
    }
    // 1,200 spans, past the bound: the first are forgotten, so a poll that read before them is
    // told to read again.
    expect(recent.hasSince('-infinity', 'clients', new Set(['link-b']))).toBe(true);
    expect(recent.hasSince('2026-01-01T00:09:59.000000Z', 'clients', undefined)).toBe(false);
  });

  it('ignores a safe point that did not move forward', () => {
    const recent = new RecentChanges(at(10));
    recent.record(at(8), { links: 'all', clients: 'all' });
    expect(recent.position).toBe(at(10));
    expect(recent.hasSince(at(10), 'links', undefined)).toBe(false);
  });
});
