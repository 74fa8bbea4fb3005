/**
 * A read shared by the callers that ask at about the same time, without ever answering a caller
 * with what was read before it asked: a caller joins the next read to start, never one already
 * running. While a read runs, every caller that arrives waits for the one that starts as it
 * ends, and they all share it; so however many ask, at most one read runs at a time.
 */
export class CoalescedRead<T> {
  private running?: Promise<T>;
  private next?: Promise<T>;

  constructor(private readonly read: () => Promise<T>) {}

  /** No read runs and none is waiting to start. */
  get isIdle(): boolean {
    return this.running === undefined && this.next === undefined;
  }

  get(): Promise<T> {
    if (this.running === undefined) return this.start();
    this.next ??= this.running.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  private startNext(): Promise<T> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const running = this.read();
    this.running = running;
    const settled = () => {
      if (this.running === running) this.running = undefined;
    };
    running.then(settled, settled);
    return running;
  }
}

/**
 * CoalescedRead for reads told apart by a key: callers with the same key share reads as above;
 * a key is forgotten once its reads are done.
 */
export class CoalescedReads<T> {
  private readonly byKey = new Map<string, CoalescedRead<T>>();

  /** `read` must give the same answer for the same key: the first caller's is the one run. */
  get(key: string, read: () => Promise<T>): Promise<T> {
    const shared = this.byKey.get(key) ?? new CoalescedRead(read);
    this.byKey.set(key, shared);
    const answer = shared.get();
    const forgetWhenDone = () => {
      if (shared.isIdle && this.byKey.get(key) === shared) this.byKey.delete(key);
    };
    answer.then(forgetWhenDone, forgetWhenDone);
    return answer;
  }

  /** Keys with a read running or waiting to start. */
  get size(): number {
    return this.byKey.size;
  }
}
