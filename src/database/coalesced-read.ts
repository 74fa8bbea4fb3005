/**
 * Resolves once a read may start, with what to call when it is done: a cap on the reads that
 * run at once. A read waiting here has not begun, so callers may still join it.
 */
export type ReadGate = () => Promise<() => void>;

/**
 * A read shared by the callers that ask at about the same time, without ever answering a caller
 * with what was read before it asked: a caller joins the next read to start (or one still
 * waiting at its gate), never one already running. While a read runs, every caller that arrives
 * waits for the one that starts as it ends, and they all share it; so however many ask, at most
 * one read runs at a time.
 */
export class CoalescedRead<T> {
  private running?: Promise<T>;
  private next?: Promise<T>;
  /** The read waiting at its gate, not begun yet. */
  private gated?: Promise<T>;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly gate?: ReadGate,
  ) {}

  /** No read runs and none is waiting to start. */
  get isIdle(): boolean {
    return this.running === undefined && this.next === undefined;
  }

  get(): Promise<T> {
    if (this.gated) return this.gated;
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
    const running = this.gate ? this.throughGate(this.gate) : this.read();
    this.running = running;
    const settled = () => {
      if (this.running === running) this.running = undefined;
      if (this.gated === running) this.gated = undefined;
    };
    running.then(settled, settled);
    return running;
  }

  private throughGate(gate: ReadGate): Promise<T> {
    const read = gate().then((done) => {
      this.gated = undefined;
      return this.read().finally(done);
    });
    this.gated = read;
    return read;
  }
}

/**
 * CoalescedRead for reads told apart by a key: callers with the same key share reads as above;
 * a key is forgotten once its reads are done.
 */
export class CoalescedReads<T> {
  private readonly byKey = new Map<string, CoalescedRead<T>>();

  /**
   * `read` must give the same answer for the same key: the first caller's is the one run (and
   * its `gate`, when it must wait for one).
   */
  get(key: string, read: () => Promise<T>, gate?: ReadGate): Promise<T> {
    const shared = this.byKey.get(key) ?? new CoalescedRead(read, gate);
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
