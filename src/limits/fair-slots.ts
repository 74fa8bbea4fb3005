/** Gives a slot back; called once. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  refuse: () => void;
  timer?: NodeJS.Timeout;
}

/**
 * `max` slots of one kind of work shared between keys (API keys, or '' for none). A free slot is
 * taken at once; past `max`, callers wait in a queue of their key, and each slot set free goes
 * to the waiting key that holds the fewest (the longest waiting of those first), so a key
 * running work back to back cannot keep another's waiting. A key may wait with at most
 * `maxWaitingPerKey` calls at once, and none waits longer than its `waitMs`: past either, it is
 * refused.
 */
export class FairSlots {
  private running = 0;
  private readonly runningOf = new Map<string, number>();
  /** Waiting callers by key, keys in the order they began to wait. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly max: number,
    private readonly maxWaitingPerKey: number,
  ) {}

  /** A slot for `key`, now or once one is its turn; rejects with `refusal()` past the bounds. */
  acquire(key: string, waitMs: number, refusal: () => Error): Promise<Release> {
    if (this.running < this.max && this.queues.size === 0) return Promise.resolve(this.take(key));
    const waiting = this.queues.get(key)?.length ?? 0;
    if (waiting >= this.maxWaitingPerKey || waitMs <= 0) return Promise.reject(refusal());
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, refuse: () => reject(refusal()) };
      waiter.timer = setTimeout(() => this.giveUp(key, waiter), waitMs);
      this.enqueue(key, waiter);
    });
  }

  private enqueue(key: string, waiter: Waiter): void {
    const queue = this.queues.get(key) ?? [];
    queue.push(waiter);
    this.queues.set(key, queue);
  }

  /** A slot for `key` once it is its turn, however long that takes: never refused. */
  acquireInTurn(key: string): Promise<Release> {
    if (this.running < this.max && this.queues.size === 0) return Promise.resolve(this.take(key));
    return new Promise<Release>((resolve) =>
      this.enqueue(key, { grant: resolve, refuse: () => undefined }),
    );
  }

  /** Calls at work now, and calls waiting. */
  get load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { running: this.running, waiting };
  }

  private take(key: string): Release {
    this.running++;
    this.runningOf.set(key, (this.runningOf.get(key) ?? 0) + 1);
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.running--;
      const left = (this.runningOf.get(key) ?? 1) - 1;
      if (left > 0) this.runningOf.set(key, left);
      else this.runningOf.delete(key);
      this.handOn();
    };
  }

  /** Free slots go to the waiting keys that hold the fewest. */
  private handOn(): void {
    while (this.running < this.max && this.queues.size > 0) {
      let next: string | undefined;
      for (const key of this.queues.keys()) {
        if (next === undefined || (this.runningOf.get(key) ?? 0) < (this.runningOf.get(next) ?? 0))
          next = key;
      }
      const queue = this.queues.get(next!)!;
      const waiter = queue.shift()!;
      // Served, the key waits again behind the others.
      this.queues.delete(next!);
      if (queue.length > 0) this.queues.set(next!, queue);
      clearTimeout(waiter.timer);
      waiter.grant(this.take(next!));
    }
  }

  private giveUp(key: string, waiter: Waiter): void {
    const queue = this.queues.get(key);
    const at = queue?.indexOf(waiter) ?? -1;
    if (at === -1) return;
    queue!.splice(at, 1);
    if (queue!.length === 0) this.queues.delete(key);
    waiter.refuse();
  }
}
