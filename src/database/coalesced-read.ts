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
