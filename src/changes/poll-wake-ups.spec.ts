import { PollWakeUps } from './poll-wake-ups';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000000Z`;

describe('PollWakeUps', () => {
  it('wakes for a row of its link stamped after what it read, with the safe point to read to', async () => {
    const poll = new PollWakeUps('clients', new Set(['link-a']), at(10));
    poll.changed(new Map([['link-b', at(20)]]), at(30));
    poll.changed(new Map([['link-a', at(5)]]), at(30));
    const next = poll.next();
    poll.changed(new Map([['link-a', at(12)]]), at(31));
    await expect(next).resolves.toEqual({ cause: 'change', safePoint: at(31) });
  });

  it('keeps wake-ups told while it reads, merged: none is lost', async () => {
    const poll = new PollWakeUps('links', undefined, at(10));
    poll.changed(new Map([['link-a', at(11)]]), at(20));
    poll.changed(new Map([['link-b', at(21)]]), at(25));
    await expect(poll.next()).resolves.toEqual({ cause: 'change', safePoint: at(25) });
    // A re-check (the watcher down) reads its own safe point.
    poll.changed(new Map([['link-a', at(26)]]), at(30));
    poll.changed('all');
    await expect(poll.next()).resolves.toEqual({ cause: 'change', safePoint: undefined });
    poll.changed('all');
    await expect(poll.next()).resolves.toEqual({ cause: 'recheck', safePoint: undefined });
  });

  it('resolves undefined once ended, and ignores later wake-ups', async () => {
    const poll = new PollWakeUps('links', undefined, at(10));
    const next = poll.next();
    poll.end();
    await expect(next).resolves.toBeUndefined();
    poll.changed('all', at(20));
    await expect(poll.next()).resolves.toBeUndefined();
  });
});
