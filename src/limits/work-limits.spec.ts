import { ServiceBusyException } from '../errors/service-busy.exception';
import { workLimits } from '../../test/support/work-limits';

/** Work that runs until `finish()`. */
function held() {
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: () => done, finish: () => finish() };
}

describe('WorkLimits', () => {
  it('runs work in turn once a place is free, in order, and refuses a key with a cap of it waiting', async () => {
    const limits = workLimits({ MAX_CONCURRENT_LIST_RENDERS: 1 });
    const first = held();
    const running = limits.run('list_render', 'a', first.work);
    const order: string[] = [];
    const second = limits.runInTurn('list_render', 'a', async () => void order.push('second'));
    const third = limits.runInTurn('list_render', 'a', async () => void order.push('third'));
    // Key a already waits with the cap's worth (one): new work of it is refused at once.
    await expect(limits.run('list_render', 'a', async () => undefined)).rejects.toBeInstanceOf(
      ServiceBusyException,
    );
    expect(order).toEqual([]);
    first.finish();
    await Promise.all([running, second, third]);
    expect(order).toEqual(['second', 'third']);
    // All places free again.
    await expect(limits.run('list_render', 'a', async () => 'ran')).resolves.toBe('ran');
  });
});
