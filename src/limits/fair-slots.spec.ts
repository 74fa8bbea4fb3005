import { FairSlots } from './fair-slots';

const busy = () => new Error('busy');
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FairSlots', () => {
  it('gives free slots at once, then queues, refusing past the wait bound of a key', async () => {
    const slots = new FairSlots(2, 1);
    const a1 = await slots.acquire('a', 1000, busy);
    await slots.acquire('a', 1000, busy);
    const queued = slots.acquire('a', 1000, busy);
    await expect(slots.acquire('a', 1000, busy)).rejects.toThrow('busy');
    expect(slots.load).toEqual({ running: 2, waiting: 1 });
    a1();
    await expect(queued).resolves.toEqual(expect.any(Function));
    expect(slots.load).toEqual({ running: 2, waiting: 0 });
  });

  it('refuses at once without a wait, and after the wait', async () => {
    jest.useFakeTimers();
    try {
      const slots = new FairSlots(1, 10);
      await slots.acquire('a', 0, busy);
      await expect(slots.acquire('b', 0, busy)).rejects.toThrow('busy');
      const waiting = slots.acquire('b', 500, busy);
      const refused = expect(waiting).rejects.toThrow('busy');
      await jest.advanceTimersByTimeAsync(500);
      await refused;
      expect(slots.load).toEqual({ running: 1, waiting: 0 });
    } finally {
      jest.useRealTimers();
    }
  });

  it('hands a freed slot to the waiting key that holds the fewest, not back to the busy one', async () => {
    const slots = new FairSlots(2, 10);
    const held = [await slots.acquire('a', 0, busy), await slots.acquire('a', 0, busy)];
    const order: string[] = [];
    const wait = (key: string) =>
      slots.acquire(key, 10_000, busy).then((release) => {
        order.push(key);
        return release;
      });
    // Key a queues first, then b: a already holds both slots.
    const a3 = wait('a');
    const b1 = wait('b');
    held[0]();
    await tick();
    expect(order).toEqual(['b']);
    held[1]();
    await tick();
    expect(order).toEqual(['b', 'a']);
    (await a3)();
    (await b1)();
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
  });

  it('counts a slot given back twice once', async () => {
    const slots = new FairSlots(1, 1);
    const release = await slots.acquire('a', 0, busy);
    release();
    release();
    expect(slots.load).toEqual({ running: 0, waiting: 0 });
    await slots.acquire('b', 0, busy);
    await expect(slots.acquire('c', 0, busy)).rejects.toThrow('busy');
  });
});
