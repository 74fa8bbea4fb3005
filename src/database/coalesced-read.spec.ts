import { CoalescedRead, CoalescedReads } from './coalesced-read';

/** A read whose answers the test releases one by one, each the number of reads started so far. */
function heldReads() {
  const pending: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      started++;
      const n = started;
      pending.push({ resolve: () => resolve(n), reject });
    });
  return {
    read,
    started: () => started,
    finish: () => pending.shift()?.resolve(0),
    fail: () => pending.shift()?.reject(new Error('read failed')),
  };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedRead', () => {
  it('starts a read for a caller when none runs', async () => {
    const reads = heldReads();
    const shared = new CoalescedRead(reads.read);
    const first = shared.get();
    expect(reads.started()).toBe(1);
    reads.finish();
    await expect(first).resolves.toBe(1);
    const second = shared.get();
    expect(reads.started()).toBe(2);
    reads.finish();
    await expect(second).resolves.toBe(2);
  });

  it('never hands a caller the read running when it asked: callers meanwhile share the next', async () => {
    const reads = heldReads();
    const shared = new CoalescedRead(reads.read);
    const first = shared.get();
    const waiting = [shared.get(), shared.get(), shared.get()];
    expect(reads.started()).toBe(1);
    reads.finish();
    await expect(first).resolves.toBe(1);
    await tick();
    expect(reads.started()).toBe(2);
    reads.finish();
    await expect(Promise.all(waiting)).resolves.toEqual([2, 2, 2]);
    expect(reads.started()).toBe(2);
  });

  it('starts the next read after a failed one, and shares a failure only with its own callers', async () => {
    const reads = heldReads();
    const shared = new CoalescedRead(reads.read);
    const first = shared.get();
    const second = shared.get();
    reads.fail();
    await expect(first).rejects.toThrow('read failed');
    await tick();
    reads.finish();
    await expect(second).resolves.toBe(2);
  });
});

describe('CoalescedRead behind a gate', () => {
  /** A gate the test opens; counts the slots given back. */
  function heldGate() {
    const opens: (() => void)[] = [];
    let released = 0;
    const gate = () =>
      new Promise<() => void>((resolve) => opens.push(() => resolve(() => released++)));
    return { gate, open: () => opens.shift()?.(), released: () => released };
  }

  it('lets callers join a read still waiting at its gate, and gives its slot back when done', async () => {
    const reads = heldReads();
    const gate = heldGate();
    const shared = new CoalescedRead(reads.read, gate.gate);
    const callers = [shared.get(), shared.get(), shared.get()];
    expect(reads.started()).toBe(0);
    gate.open();
    await tick();
    expect(reads.started()).toBe(1);
    // Asked once the read began: the next one, which waits at the gate again.
    const later = shared.get();
    reads.finish();
    await expect(Promise.all(callers)).resolves.toEqual([1, 1, 1]);
    expect(gate.released()).toBe(1);
    await tick();
    gate.open();
    await tick();
    reads.finish();
    await expect(later).resolves.toBe(2);
    expect(gate.released()).toBe(2);
  });

  it('fails its callers when the gate refuses, and starts anew for the next caller', async () => {
    const reads = heldReads();
    let refuse = true;
    const gate = () =>
      refuse ? Promise.reject(new Error('busy')) : Promise.resolve(() => undefined);
    const shared = new CoalescedRead(reads.read, gate);
    await expect(Promise.all([shared.get(), shared.get()])).rejects.toThrow('busy');
    expect(reads.started()).toBe(0);
    refuse = false;
    const next = shared.get();
    await tick();
    reads.finish();
    await expect(next).resolves.toBe(1);
  });
});

describe('CoalescedReads', () => {
  it('shares reads between callers of one key, never across keys', async () => {
    const a = heldReads();
    const b = heldReads();
    const shared = new CoalescedReads<number>();
    const first = shared.get('a', a.read);
    const waiting = [shared.get('a', a.read), shared.get('a', a.read)];
    const other = shared.get('b', b.read);
    expect([a.started(), b.started()]).toEqual([1, 1]);
    a.finish();
    b.finish();
    await expect(first).resolves.toBe(1);
    await expect(other).resolves.toBe(1);
    await tick();
    expect(a.started()).toBe(2);
    a.finish();
    await expect(Promise.all(waiting)).resolves.toEqual([2, 2]);
  });

  it('forgets a key once its reads are done, failed ones too', async () => {
    const reads = heldReads();
    const shared = new CoalescedReads<number>();
    const first = shared.get('a', reads.read);
    const second = shared.get('a', reads.read);
    reads.fail();
    await expect(first).rejects.toThrow('read failed');
    expect(shared.size).toBe(1);
    await tick();
    reads.finish();
    await expect(second).resolves.toBe(2);
    await tick();
    expect(shared.size).toBe(0);
  });
});
